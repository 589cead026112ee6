import type { ComponentChildren } from 'preact';
import { Can, CardForm } from './access';
import type { License } from './api';
import { Field, type ConfirmRequest } from './ui';

/** Time left until an ISO instant, coarsely: what an owner glances at. */
export function timeLeft(until: string, now: number = Date.now()): string {
  return spelled(Math.max(0, Math.round((Date.parse(until) - now) / 1000)));
}

/** Seconds as the two largest units that matter: "2 d 3 h", "15 min 0 s". */
function spelled(seconds: number): string {
  if (seconds >= 86400) return `${Math.floor(seconds / 86400)} d ${Math.floor((seconds % 86400) / 3600)} h`;
  if (seconds >= 3600) return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
  if (seconds >= 60) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${seconds} s`;
}

/**
 * A license's floating seats (docs/licensing-models.md, "Floating seats"): its live
 * leases with the time each has left and a borrowed mark, removal of one, and
 * the lease length (empty: leasing off).
 */
export function FloatingSeats({
  license,
  busy,
  onSetLease,
  onRemove,
  confirm,
  note,
}: {
  license: License;
  busy: boolean;
  onSetLease: (leaseSeconds: number | null) => void;
  onRemove: (hwid: string) => void;
  confirm: (request: ConfirmRequest) => void;
  /** What the last action of this card did, or its error. */
  note: ComponentChildren;
}) {
  const leases = license.leases ?? [];
  const seats = license.max_devices ?? 1;
  return (
    <CardForm
      path="/hwid/set-lease"
      class="card"
      aria-label="Floating seats"
      onSubmit={(event) => {
        event.preventDefault();
        const value = String(new FormData(event.currentTarget).get('lease_seconds')).trim();
        onSetLease(value === '' ? null : Number(value));
      }}
    >
      <h2>Floating seats</h2>
      {license.lease_seconds === undefined ? (
        <p>Off: devices keep their seats until removed or reset.</p>
      ) : (
        <>
          <p>
            Each device holds a seat for {spelled(license.lease_seconds)} after its last check.
            {license.floating === false && ' No effect while HWID lock is off.'}
          </p>
          <p>
            {leases.length} of {seats} {seats === 1 ? 'seat' : 'seats'} leased.
          </p>
          {leases.length > 0 && (
            <ul class="leases" aria-label="Leases">
              {leases.map((lease) => (
                <li key={lease.hwid}>
                  <code>{lease.hwid}</code>
                  <span class="lease-left" title={lease.expires_at}>
                    {timeLeft(lease.expires_at)} left
                  </span>
                  {lease.borrowed && (
                    <span class="badge borrowed" title="Borrowed for offline work: the client cannot release it before its end">
                      borrowed
                    </span>
                  )}
                  <Can path="/hwid/remove"><button
                    type="button"
                    class="danger"
                    disabled={busy}
                    aria-label={`Release seat of ${lease.hwid}`}
                    onClick={() =>
                      confirm({
                        title: 'Release this seat?',
                        text: `${lease.hwid} loses its seat now${lease.borrowed ? ', though it borrowed it: its offline token stays valid until it ends' : ''}; the next device that authenticates may take it.`,
                        action: 'Release seat',
                        onConfirm: () => onRemove(lease.hwid),
                      })
                    }
                  >
                    Release…
                  </button></Can>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      <Can path="/hwid/set-lease">
        <Field label="Lease seconds (60 to 2592000; empty: off)">
          <input name="lease_seconds" type="number" min={60} max={2592000} defaultValue={license.lease_seconds === undefined ? '' : String(license.lease_seconds)} key={license.lease_seconds} />
        </Field>
        <button type="submit" disabled={busy}>
          Set leasing
        </button>
      </Can>
      {note}
    </CardForm>
  );
}
