import { clientFailure } from '#core/http/errors';
import { isLive, leaseOfDevice, liveLeases, nextSeatAt, type Lease, type SeatWrite } from '#data/model/lease';
import type { License } from '#data/model/license';

/** Ended leases one seat-taking write drops at most, leaving room in its transaction for the index items that go with them. */
const maxDroppedPerWrite = 90;

/**
 * The lease /auth gives this device on a floating license (docs/licensing-models.md,
 * "Floating seats"): `lease_seconds` from now, or with `borrowSeconds` a
 * borrowed one until `now + borrowSeconds`, never past the license's expiry.
 * A borrow while one runs may lengthen it, never shorten it. A heartbeat while
 * one runs keeps it as it is: were it to become a lease of `lease_seconds`, the
 * client could release the seat while the borrow's offline token still runs,
 * and hand the seat to a next device with a token of its own.
 */
function leaseFor(license: License, held: Lease | undefined, now: Date, expiresAt: string, borrowSeconds: number | undefined): Lease {
  const at = (seconds: number) => now.getTime() + seconds * 1000;
  if (borrowSeconds !== undefined) {
    // Whole seconds, as the offline token's `exp` is exactly this end.
    const end = Math.floor(Math.min(at(borrowSeconds), Date.parse(expiresAt)) / 1000) * 1000;
    return held?.borrowed === true && Date.parse(held.expires_at) >= end ? held : { expires_at: new Date(end).toISOString(), borrowed: true };
  }
  if (held?.borrowed === true) return held;
  return { expires_at: new Date(at(license.lease_seconds!)).toISOString(), borrowed: false };
}

/**
 * Check 9 of docs/client-api.md, "Check order", on a floating license: a device with a live lease renews it; one
 * without takes a seat while fewer than `max_devices` leases are live,
 * dropping ended ones in the same write; otherwise 403 `SEATS_EXHAUSTED`.
 * `expiresAt` is the license's expiry after this /auth (set by a first use).
 */
export function seatFor(license: License, hwid: string | undefined, now: Date, expiresAt: string, borrowSeconds: number | undefined): SeatWrite {
  if (hwid === undefined) throw clientFailure('HWID_NOT_PROVIDED');
  const live = liveLeases(license, now);
  const held = leaseOfDevice(license, hwid);
  if (isLive(held, now)) return { hwid, lease: leaseFor(license, held, now, expiresAt, borrowSeconds), held, dropped: [] };
  if (live.length >= license.max_devices) throw clientFailure('SEATS_EXHAUSTED', { max_devices: license.max_devices, next_seat_at: nextSeatAt(live) });
  const dropped = license.hwids
    .filter((listed) => !live.some((lease) => lease.hwid === listed))
    .slice(0, maxDroppedPerWrite)
    .map((listed) => ({ hwid: listed, lease: leaseOfDevice(license, listed) }));
  return { hwid, lease: leaseFor(license, undefined, now, expiresAt, borrowSeconds), dropped };
}
