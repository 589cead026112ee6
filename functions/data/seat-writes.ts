import type { TransactItem } from './db';
import { keys } from './keys';
import { storedLease, type Lease, type SeatWrite } from './model/lease';

/** Parts of the license update of /auth that hold a floating seat, to merge into its one write. */
export interface SeatExpression {
  sets: string[];
  removes: string[];
  conditions: string[];
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/**
 * A renewal writes this device's lease where it is, conditional on it being
 * the lease read: not borrowed meanwhile (a heartbeat must not shorten a borrow)
 * and not taken away (an ended lease whose HWID another license claimed is
 * removed). Both conditions still hold after the write, so the SDK resending it
 * after a lost answer succeeds again.
 */
export function renewal(seat: SeatWrite & { held: Lease }): SeatExpression {
  const names = { '#leaseHwid': seat.hwid };
  const values: Record<string, unknown> = { ':lease': storedLease(seat.lease), ':leaseHwid': seat.hwid };
  const conditions = ['contains(hwids, :leaseHwid)'];
  if (seat.held.borrowed) {
    conditions.push('leases.#leaseHwid = :held');
    values[':held'] = storedLease(seat.held);
  } else {
    // A borrowed lease is stored negative (model/lease.ts).
    conditions.push('leases.#leaseHwid > :notBorrowed');
    values[':notBorrowed'] = 0;
  }
  return { sets: ['leases.#leaseHwid = :lease'], removes: [], conditions, names, values };
}

/**
 * A seat taken while listed HWIDs' leases have ended: the list becomes the
 * live devices plus this one, and the ended leases go, in one write
 * conditional on the list and on each dropped lease as read (a renewal or a
 * claim by another license in between makes it fail and be decided again).
 */
export function takeDroppingEnded(seat: SeatWrite, liveHwids: readonly string[]): SeatExpression & { hwids: string[] } {
  const hwids = [...liveHwids, seat.hwid];
  const names: Record<string, string> = { '#leaseHwid': seat.hwid };
  const values: Record<string, unknown> = { ':lease': storedLease(seat.lease), ':newHwids': hwids, ':newHwid': hwids[0], ':seatCount': hwids.length };
  const conditions = [':seatCount <= max_devices'];
  const removes: string[] = [];
  seat.dropped.forEach(({ hwid, lease }, index) => {
    const name = hwid === seat.hwid ? '#leaseHwid' : `#dropped${index}`;
    names[name] = hwid;
    if (name !== '#leaseHwid') removes.push(`leases.${name}`);
    if (lease) {
      conditions.push(`leases.${name} = :dropped${index}`);
      values[`:dropped${index}`] = storedLease(lease);
    } else {
      conditions.push(`attribute_not_exists(leases.${name})`);
    }
  });
  return { sets: ['hwids = :newHwids', 'hwid = :newHwid', 'leases.#leaseHwid = :lease'], removes, conditions, names, values, hwids };
}

/** A seat taken beside the live ones: appended, as a node-locked seat is. */
export function takeAppending(seat: SeatWrite): SeatExpression {
  return { sets: ['leases.#leaseHwid = :lease'], removes: [], conditions: [], names: { '#leaseHwid': seat.hwid }, values: { ':lease': storedLease(seat.lease) } };
}

/** The first seat of a license: the whole map is written, as nothing is listed. */
export function takeFirst(seat: SeatWrite): SeatExpression {
  return { sets: ['leases = :leases'], removes: [], conditions: [], names: {}, values: { ':leases': { [seat.hwid]: storedLease(seat.lease) } } };
}

/**
 * The index items of dropped devices under `single_key_per_hwid`, deleted
 * with the write that drops them. A dropped HWID without a lease lost it to a
 * claim by another license, whose index item it is now.
 */
export function droppedClaims(tableName: string, license: { app_id: string; key: string }, seat: SeatWrite): TransactItem[] {
  return seat.dropped
    .filter(({ hwid, lease }) => lease !== undefined && hwid !== seat.hwid)
    .map(({ hwid }) => ({
      Delete: {
        TableName: tableName,
        Key: keys.hwid(license.app_id, hwid),
        ConditionExpression: 'attribute_not_exists(pk) OR license_key = :key',
        ExpressionAttributeValues: { ':key': license.key },
      },
    }));
}
