import { addSeconds } from '#shared/clock';
import { conditional, transactWrite, type Table, type TransactItem } from './db';
import { condition, conditions, part, Update } from './expressions';
import { keys } from './keys';
import { liveLeases, storedLease, storedLeases, type Lease } from './model/lease';
import type { License } from './model/license';

/** Writes of floating seats outside /auth's own write (that one is in auth.repo.ts). */
/**
 * Gives up `hwid`'s seat (POST /release): the device leaves the list and its
 * lease goes, with its `single_key_per_hwid` index item, in one transaction.
 * The device is removed by its position, conditional on still being there
 * with the lease read, so seats taken beside it meanwhile (appended after
 * it) do not get in the way; when it is the first, `hwid` becomes the next
 * one, conditional on that one too. The token makes a resent attempt succeed.
 */
export async function release(table: Table, license: License, hwid: string, lease: Lease, releaseClaim: boolean): Promise<'released' | 'changed'> {
  const position = license.hwids.indexOf(hwid);
  if (position < 0) return 'changed';
  const device = { '#hwid': hwid };
  const write = new Update()
    .remove(part(`hwids[${position}]`), part('leases.#hwid', {}, device))
    .when(part(`hwids[${position}] = :hwid`, { ':hwid': hwid }), part('leases.#hwid = :lease', { ':lease': storedLease(lease) }, device));
  if (position === 0) {
    const next = license.hwids[1];
    write.set(part('hwid = :next', { ':next': next ?? null }));
    write.when(next === undefined ? part('size(hwids) = :one', { ':one': 1 }) : part('hwids[1] = :next', { ':next': next }));
  }
  const items: TransactItem[] = [{ Update: { TableName: table.name, Key: keys.licenseOf(license), ...write.input() } }];
  if (releaseClaim) items.push({ Delete: { TableName: table.name, Key: keys.hwid(license.app_id, hwid), ...condition(conditions.freeOrHeldBy(license.key)) } });
  const written = await conditional(transactWrite(table, items, { retryCancellations: false }), 'race');
  return written.held ? 'released' : 'changed';
}

/**
 * Sets `lease_seconds` (`/hwid/set-lease`) on the license as read. From null,
 * every listed device gets a lease from `now`; between two values, leases
 * keep their ends (the next heartbeat uses the new length); to null, live
 * leases become bindings for good and ended ones are dropped with the index
 * items `heldClaims` says point at this license. Conditional on the list,
 * the leases and `lease_seconds` as read. False when any changed since.
 */
export async function setLeaseSeconds(table: Table, license: License, seconds: number | null, now: Date, heldClaims: readonly string[]): Promise<boolean> {
  const write = new Update()
    .set(part('lease_seconds = :seconds', { ':seconds': seconds }))
    .when(part('team_id = :team', { ':team': license.team_id }), conditions.boundAsRead(license));
  if (license.lease_seconds === null) write.when(part('(attribute_not_exists(lease_seconds) OR attribute_type(lease_seconds, :nullType))', { ':nullType': 'NULL' }));
  else write.when(part('lease_seconds = :oldSeconds', { ':oldSeconds': license.lease_seconds }));
  const items: TransactItem[] = [];
  if (license.lease_seconds === null && seconds !== null) {
    const end = addSeconds(now.toISOString(), seconds);
    write.set(part('leases = :leases', { ':leases': Object.fromEntries(license.hwids.map((hwid) => [hwid, storedLease({ expires_at: end, borrowed: false })])) }));
  } else if (seconds === null) {
    const kept = liveLeases(license, now).map((lease) => lease.hwid);
    write
      .set(part('hwids = :kept', { ':kept': kept }), part('hwid = :first', { ':first': kept[0] ?? null }))
      .remove(part('leases'))
      .when(part('leases = :readLeases', { ':readLeases': storedLeases(license.leases) }));
    for (const hwid of license.hwids.filter((listed) => !kept.includes(listed) && heldClaims.includes(listed))) {
      items.push({ Delete: { TableName: table.name, Key: keys.hwid(license.app_id, hwid), ...condition(conditions.heldBy(license.key)) } });
    }
  }
  items.unshift({ Update: { TableName: table.name, Key: keys.licenseOf(license), ...write.input() } });
  const written = await conditional(transactWrite(table, items), 'race');
  return written.held;
}
