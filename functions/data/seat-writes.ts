import type { TransactItem } from './db';
import { condition, conditions as named, part, type ExpressionPart } from './expressions';
import { keys } from './keys';
import { storedLease, type Lease, type SeatWrite } from './model/lease';

/** Parts of the license update of /auth that hold a floating seat, to merge into its one write. */
export interface SeatExpression {
  sets: ExpressionPart[];
  removes: ExpressionPart[];
  conditions: ExpressionPart[];
}

/** This device's lease after the write, at its place in `leases`. */
const leaseOfDevice = (seat: SeatWrite) => part('leases.#leaseHwid = :lease', { ':lease': storedLease(seat.lease) }, { '#leaseHwid': seat.hwid });

/**
 * A renewal writes this device's lease where it is, conditional on it being
 * the lease read: not borrowed meanwhile (a heartbeat must not shorten a borrow)
 * and not taken away (an ended lease whose HWID another license claimed is
 * removed). Both conditions still hold after the write, so the SDK resending it
 * after a lost answer succeeds again.
 */
export function renewal(seat: SeatWrite & { held: Lease }): SeatExpression {
  const listed = part('contains(hwids, :leaseHwid)', { ':leaseHwid': seat.hwid });
  const asHeld = seat.held.borrowed
    ? part('leases.#leaseHwid = :held', { ':held': storedLease(seat.held) }, { '#leaseHwid': seat.hwid })
    : // A borrowed lease is stored negative (model/lease.ts).
      part('leases.#leaseHwid > :notBorrowed', { ':notBorrowed': 0 }, { '#leaseHwid': seat.hwid });
  return { sets: [leaseOfDevice(seat)], removes: [], conditions: [listed, asHeld] };
}

/**
 * A seat taken while listed HWIDs' leases have ended: the list becomes the
 * live devices plus this one, and the ended leases go, in one write
 * conditional on the list and on each dropped lease as read (a renewal or a
 * claim by another license in between makes it fail and be decided again).
 */
export function takeDroppingEnded(seat: SeatWrite, liveHwids: readonly string[]): SeatExpression & { hwids: string[] } {
  const hwids = [...liveHwids, seat.hwid];
  const conditions = [part(':seatCount <= max_devices', { ':seatCount': hwids.length })];
  const removes: ExpressionPart[] = [];
  seat.dropped.forEach(({ hwid, lease }, index) => {
    const name = hwid === seat.hwid ? '#leaseHwid' : `#dropped${index}`;
    const names = { [name]: hwid };
    if (name !== '#leaseHwid') removes.push(part(`leases.${name}`, {}, names));
    conditions.push(lease ? part(`leases.${name} = :dropped${index}`, { [`:dropped${index}`]: storedLease(lease) }, names) : part(`attribute_not_exists(leases.${name})`, {}, names));
  });
  const sets = [part('hwids = :newHwids', { ':newHwids': hwids }), part('hwid = :newHwid', { ':newHwid': hwids[0] }), leaseOfDevice(seat)];
  return { sets, removes, conditions, hwids };
}

/** A seat taken beside the live ones: appended, as a node-locked seat is. */
export function takeAppending(seat: SeatWrite): SeatExpression {
  return { sets: [leaseOfDevice(seat)], removes: [], conditions: [] };
}

/** The first seat of a license: the whole map is written, as nothing is listed. */
export function takeFirst(seat: SeatWrite): SeatExpression {
  return { sets: [part('leases = :leases', { ':leases': { [seat.hwid]: storedLease(seat.lease) } })], removes: [], conditions: [] };
}

/**
 * The index items of dropped devices under `single_key_per_hwid`, deleted
 * with the write that drops them. A dropped HWID without a lease lost it to a
 * claim by another license, whose index item it is now.
 */
export function droppedClaims(tableName: string, license: { app_id: string; key: string }, seat: SeatWrite): TransactItem[] {
  return seat.dropped
    .filter(({ hwid, lease }) => lease !== undefined && hwid !== seat.hwid)
    .map(({ hwid }) => ({ Delete: { TableName: tableName, Key: keys.hwid(license.app_id, hwid), ...condition(named.freeOrHeldBy(license.key)) } }));
}
