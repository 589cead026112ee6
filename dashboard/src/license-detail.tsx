import { Can, CardForm, useCan } from './access';
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call, type Body, type ManagementPath, type License, type Subscription } from './api';
import { LicenseEntitlements } from './entitlements';
import { FloatingSeats } from './floating-seats';
import { LicenseFiles } from './license-files';
import { LicenseTimeline } from './history';
import { ConfirmDialog, DurationFields, ErrorNote, Field, duration, readDuration, Tags, Time, usePlacedNotice, wholeNumber, type ConfirmRequest } from './ui';

/** One license and every management action on it; destructive ones ask first. */
export function LicenseDetail({ licenseKey, subscriptions, listHref, onDeleted }: { licenseKey: string; subscriptions: Subscription[]; listHref: string; onDeleted: () => void }) {
  const [license, setLicense] = useState<License | null>(null);
  const [confirm, setConfirm] = useState<ConfirmRequest | null>(null);
  const [changes, setChanges] = useState(0);
  const placed = usePlacedNotice();
  const { busy, error, run, say, note } = placed;

  const reload = () => run(async () => setLicense((await call('/license/get', { license_key: licenseKey })).data));
  useEffect(() => {
    void reload();
  }, [licenseKey]);

  /** Runs the action of card `at`, then shows the license as the API now has it and says how it went in that card. */
  const act = async <P extends ManagementPath>(at: string, path: P, body: Omit<Body<P>, 'license_key'>, done: string) => {
    const result = await placed.act(
      at,
      async () => {
        await call(path, { license_key: licenseKey, ...body } as Body<P>);
        setLicense((await call('/license/get', { license_key: licenseKey })).data);
        return true;
      },
      done,
    );
    if (result) setChanges((count) => count + 1);
  };

  const header = (
    <div class="row">
      <a href={listHref}>← Licenses</a>
      <h1>
        License <code>{licenseKey}</code>
      </h1>
    </div>
  );
  if (!license) {
    return (
      <section>
        {header}
        <ErrorNote error={error} />
      </section>
    );
  }

  const seats = license.max_devices ?? 1;
  const devices = license.hwids ?? (license.hwid ? [license.hwid] : []);
  const facts: [string, ComponentChildren][] = [
    ['Status', license.status],
    ['Subscription', `${license.subscription_name} (level ${license.subscription_level})`],
    ['Created', <Time iso={license.created_at} />],
    ['Duration', duration(license.initial_duration)],
    ['First used', <Time iso={license.first_used_at} />],
    ['Expires', <Time iso={license.expires_at} />],
    ['Last login', <Time iso={license.last_login} />],
    ['HWID', license.hwid ?? '—'],
    ['Seats', String(seats)],
    ['HWID lock', license.hwid_lock ? 'on' : 'off'],
    ['HWID reset allowed', license.hwid_reset_allowed ? 'yes' : 'no'],
    ['HWID reset interval', license.hwid_reset_interval === 0 ? 'none' : duration(license.hwid_reset_interval)],
    ['Last HWID reset', <Time iso={license.last_hwid_reset_at} />],
    ['Username', license.username ?? '—'],
    ['Email', license.email ?? '—'],
    ['Tags', license.tags.length > 0 ? <Tags tags={license.tags} /> : '—'],
  ];

  return (
    <section aria-labelledby="detail-title">
      {header}
      {note(null)}
      <dl class="facts" id="detail-title">
        {facts.map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd data-field={name}>{value}</dd>
          </div>
        ))}
      </dl>

      <div class="cards">
        <Can path="/license/extend"><form
          class="card"
          aria-label="Extend"
          onSubmit={(event) => {
            event.preventDefault();
            const read = readDuration(new FormData(event.currentTarget), 'amount', 'unit');
            if ('problem' in read) return say('Extend', read.problem);
            void act('Extend', '/license/extend', { extend_seconds: read.seconds }, `Extended by ${read.text}.`);
          }}
        >
          <h2>Extend</h2>
          <div class="row">
            <DurationFields label="By" valueName="amount" unitName="unit" />
          </div>
          <button type="submit" disabled={busy}>
            Extend
          </button>
          {note('Extend')}
        </form></Can>

        <div class="card">
          <h2>Status</h2>
          <p>{license.status === 'active' ? 'Active: authenticates normally.' : 'Paused: every /auth answers LICENSE_NOT_ACTIVE.'}</p>
          {license.status === 'active' ? (
            <Can path="/license/update-status"><button type="button" disabled={busy} onClick={() => void act('Status', '/license/update-status', { status: 'paused' }, 'Paused.')}>
              Pause
            </button></Can>
          ) : (
            <Can path="/license/update-status"><button type="button" disabled={busy} onClick={() => void act('Status', '/license/update-status', { status: 'active' }, 'Activated.')}>
              Activate
            </button></Can>
          )}
          {note('Status')}
        </div>

        <CardForm
          path="/hwid/edit"
          class="card"
          aria-label="HWID"
          onSubmit={(event) => {
            event.preventDefault();
            const hwid = String(new FormData(event.currentTarget).get('hwid')).trim();
            void act('HWID', '/hwid/edit', { hwid }, 'HWID set.');
          }}
        >
          <h2>Device (HWID)</h2>
          <Can path="/hwid/edit">
            <Field label="HWID">
              <input name="hwid" required defaultValue={license.hwid ?? ''} key={license.hwid ?? ''} />
            </Field>
          </Can>
          <div class="row">
            <Can path="/hwid/edit"><button type="submit" disabled={busy}>
              Save HWID
            </button></Can>
            <Can path="/hwid/edit"><button
              type="button"
              class="danger"
              disabled={busy || !license.hwid}
              onClick={() =>
                setConfirm({
                  title: 'Clear the HWID?',
                  text: 'The next device that authenticates with this license becomes its device.',
                  action: 'Clear HWID',
                  onConfirm: () => void act('HWID', '/hwid/edit', { hwid: null }, 'HWID cleared.'),
                })
              }
            >
              Clear HWID…
            </button></Can>
          </div>
          <div class="row">
            <Can path="/hwid/toggle-lock"><button type="button" disabled={busy} onClick={() => void act('HWID', '/hwid/toggle-lock', { hwid_lock: !license.hwid_lock }, `HWID lock ${license.hwid_lock ? 'off' : 'on'}.`)}>
              {license.hwid_lock ? 'Turn HWID lock off' : 'Turn HWID lock on'}
            </button></Can>
            <Can path="/hwid/toggle-reset-allowed"><button
              type="button"
              disabled={busy}
              onClick={() => void act('HWID', '/hwid/toggle-reset-allowed', { hwid_reset_allowed: !license.hwid_reset_allowed }, `HWID resets ${license.hwid_reset_allowed ? 'disallowed' : 'allowed'}.`)}
            >
              {license.hwid_reset_allowed ? 'Disallow HWID resets' : 'Allow HWID resets'}
            </button></Can>
          </div>
          {note('HWID')}
        </CardForm>

        <CardForm
          path="/hwid/set-max-devices"
          class="card"
          aria-label="Seats"
          onSubmit={(event) => {
            event.preventDefault();
            const maxDevices = wholeNumber(new FormData(event.currentTarget).get('max_devices'), Math.max(1, devices.length), 100);
            if (maxDevices === undefined) return say('Seats', `Enter a whole number of seats from ${Math.max(1, devices.length)} (the devices bound) to 100.`);
            void act('Seats', '/hwid/set-max-devices', { max_devices: maxDevices }, `Seats set to ${maxDevices}.`);
          }}
        >
          <h2>Seats</h2>
          <p>
            {devices.length} of {seats} {seats === 1 ? 'device' : 'devices'} bound.
          </p>
          {devices.length > 0 && (
            <ul class="devices" aria-label="Bound devices">
              {devices.map((hwid) => (
                <li key={hwid}>
                  <code>{hwid}</code>
                  <Can path="/hwid/remove"><button
                    type="button"
                    class="danger"
                    disabled={busy}
                    aria-label={`Remove device ${hwid}`}
                    onClick={() =>
                      setConfirm({
                        title: 'Remove this device?',
                        text: `${hwid} is unbound from this license; its seat is free for the next device that authenticates.`,
                        action: 'Remove device',
                        onConfirm: () => void act('Seats', '/hwid/remove', { hwid }, `Device ${hwid} removed.`),
                      })
                    }
                  >
                    Remove…
                  </button></Can>
                </li>
              ))}
            </ul>
          )}
          <Can path="/hwid/set-max-devices">
            <Field label="Seats (devices at once)">
              <input name="max_devices" type="number" min={Math.max(1, devices.length)} required defaultValue={String(seats)} key={seats} />
            </Field>
            <button type="submit" disabled={busy}>
              Set seats
            </button>
          </Can>
          {note('Seats')}
        </CardForm>

        <FloatingSeats
          license={license}
          busy={busy}
          confirm={setConfirm}
          onSetLease={(leaseSeconds) => void act('Floating seats', '/hwid/set-lease', { lease_seconds: leaseSeconds }, leaseSeconds === null ? 'Leasing off.' : `Leases of ${duration(leaseSeconds)}.`)}
          onRemove={(hwid) => void act('Floating seats', '/hwid/remove', { hwid }, `Seat of ${hwid} released.`)}
          note={note('Floating seats')}
        />

        <LicenseFiles
          license={license}
          busy={busy}
          act={(action) =>
            void placed.act(
              'License files',
              async () => {
                const done = await action();
                setLicense((await call('/license/get', { license_key: licenseKey })).data);
                setChanges((count) => count + 1);
                return done;
              },
              (done) => done,
            )
          }
          say={(problem) => say('License files', problem)}
          note={note('License files')}
        />

        <Can path="/hwid/update-reset-interval"><form
          class="card"
          aria-label="Reset interval"
          onSubmit={(event) => {
            event.preventDefault();
            const seconds = wholeNumber(new FormData(event.currentTarget).get('interval'), 0, 315360000);
            if (seconds === undefined) return say('Reset interval', 'Enter a whole number of seconds from 0 (no wait) to 315,360,000 (ten years).');
            void act('Reset interval', '/hwid/update-reset-interval', { hwid_reset_interval: seconds }, 'Reset interval saved.');
          }}
        >
          <h2>HWID reset interval</h2>
          <Field label="Seconds between resets">
            <input name="interval" type="number" min={0} required defaultValue={String(license.hwid_reset_interval)} key={license.hwid_reset_interval} />
          </Field>
          <button type="submit" disabled={busy}>
            Save interval
          </button>
          {note('Reset interval')}
        </form></Can>

        <Can path="/license/update-subscription"><form
          class="card"
          aria-label="Subscription"
          onSubmit={(event) => {
            event.preventDefault();
            const subscriptionId = String(new FormData(event.currentTarget).get('subscription_id'));
            void act('Subscription', '/license/update-subscription', { subscription_id: subscriptionId }, 'Subscription changed.');
          }}
        >
          <h2>Subscription</h2>
          <Field label="Subscription">
            <select name="subscription_id" key={license.subscription_id}>
              {subscriptions.map((subscription) => (
                <option key={subscription.subscription_id} value={subscription.subscription_id} selected={subscription.subscription_id === license.subscription_id}>
                  {subscription.name}
                </option>
              ))}
            </select>
          </Field>
          <button type="submit" disabled={busy}>
            Change subscription
          </button>
          {note('Subscription')}
        </form></Can>

        <Can path="/license/update-user-credentials"><form
          class="card"
          aria-label="Credentials"
          onSubmit={(event) => {
            event.preventDefault();
            const data = new FormData(event.currentTarget);
            const password = String(data.get('password') ?? '');
            void act('Credentials', '/license/update-user-credentials', { username: String(data.get('username')).trim(), ...(password ? { password } : {}) }, 'Credentials saved.');
          }}
        >
          <h2>Credentials</h2>
          <Field label="Username">
            <input name="username" required autocomplete="off" defaultValue={license.username ?? ''} key={license.username ?? ''} />
          </Field>
          <Field label="New password (leave empty to keep)">
            <input name="password" type="password" autocomplete="new-password" minLength={8} />
          </Field>
          <button type="submit" disabled={busy}>
            Save credentials
          </button>
          {note('Credentials')}
        </form></Can>

        <Can path="/license/update-email"><form
          class="card"
          aria-label="Customer email"
          onSubmit={(event) => {
            event.preventDefault();
            const email = String(new FormData(event.currentTarget).get('email')).trim();
            void act('Email', '/license/update-email', { email }, 'Email saved.');
          }}
        >
          <h2>Customer email</h2>
          <Field label="Email">
            <input name="email" type="email" required maxLength={254} autocomplete="off" defaultValue={license.email ?? ''} key={license.email ?? ''} />
          </Field>
          <div class="row">
            <button type="submit" disabled={busy}>
              Save email
            </button>
            {license.email && (
              <button type="button" class="quiet" disabled={busy} onClick={() => void act('Email', '/license/update-email', { email: null }, 'Email removed.')}>
                Remove email
              </button>
            )}
          </div>
          {note('Email')}
        </form></Can>

        <MetadataEditor metadata={license.metadata} busy={busy} onSave={(metadata) => void act('Metadata', '/license/update-metadata', { metadata }, 'Metadata saved.')} note={note('Metadata')} />

        <LicenseEntitlements
          license={license}
          busy={busy}
          act={(at, path, body, done) => void act(at, path, body as never, done)}
          onProblem={(problem) => say('Usage', problem instanceof Error ? problem.message : String(problem))}
          note={note}
        />

        <div class="card">
          <h2>Delete</h2>
          <p>The license stops working at once; this cannot be undone.</p>
          <Can path="/license/delete"><button
            type="button"
            class="danger"
            disabled={busy}
            onClick={() =>
              setConfirm({
                title: 'Delete this license?',
                text: `${license.key} stops working at once and cannot be restored.`,
                action: 'Delete license',
                onConfirm: () =>
                  void placed.act('Delete', async () => {
                    await call('/license/delete', { license_key: licenseKey });
                    onDeleted();
                  }),
              })
            }
          >
            Delete license…
          </button></Can>
          {note('Delete')}
        </div>
      </div>
      <LicenseTimeline appId={license.app_id} licenseKey={licenseKey} changes={changes} />
      <ConfirmDialog request={confirm} onClose={() => setConfirm(null)} />
    </section>
  );
}

function MetadataEditor({ metadata, busy, onSave, note }: { metadata: Record<string, unknown>; busy: boolean; onSave: (metadata: Record<string, unknown>) => void; note: ComponentChildren }) {
  const original = JSON.stringify(metadata, null, 2);
  const [text, setText] = useState(original);
  const [problem, setProblem] = useState('');
  const can = useCan();
  useEffect(() => setText(original), [original]);
  return (
    <CardForm
      path="/license/update-metadata"
      class="card wide"
      aria-label="Metadata"
      onSubmit={(event) => {
        event.preventDefault();
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch (error) {
          setProblem(`Not JSON: ${error instanceof Error ? error.message : String(error)}`);
          return;
        }
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
          setProblem('Metadata must be a JSON object.');
          return;
        }
        setProblem('');
        onSave(parsed as Record<string, unknown>);
      }}
    >
      <h2>Metadata (JSON)</h2>
      <textarea name="metadata" rows={6} spellcheck={false} aria-label="Metadata as JSON" value={text} readOnly={!can('/license/update-metadata')} onInput={(event) => setText(event.currentTarget.value)} />
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <Can path="/license/update-metadata">
        <button type="submit" disabled={busy}>
          Save metadata
        </button>
      </Can>
      {note}
    </CardForm>
  );
}
