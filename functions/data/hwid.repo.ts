import { addSeconds } from '#shared/clock';
import { batchGetItems } from './batch-get';
import { conditional, getItem, maxTransactItems, transactWrite, type Table, type TransactItem } from './db';
import { condition, conditions, equalities, part, Update } from './expressions';
import { releaseOverflow, releaseStaleIndexItem } from './hwid-overflow';
import { storedLease } from './model/lease';
import { hwidIndexItem } from './items';
import { keys } from './keys';
import { hwidIndexSchema, type HwidChange, type HwidChangeOutcome, type HwidIndex } from './model/hwid';
import type { License } from './model/license';

export async function get(table: Table, appId: string, hwid: string): Promise<HwidIndex | undefined> {
  const item = await getItem(table, keys.hwid(appId, hwid));
  return item ? hwidIndexSchema.parse(item) : undefined;
}

/** The license's bound HWIDs whose index item points at it (one BatchGetItem; none when nothing is bound). */
export async function heldBy(table: Table, license: Pick<License, 'app_id' | 'key' | 'hwids'>, hwids: readonly string[] = license.hwids): Promise<string[]> {
  if (hwids.length === 0) return [];
  const items = await batchGetItems(table, hwids.map((hwid) => keys.hwid(license.app_id, hwid)), { consistentRead: true });
  const entries = [...items.values()].map((item) => hwidIndexSchema.parse(item));
  return hwids.filter((hwid) => entries.some((entry) => entry.hwid === hwid && entry.license_key === license.key));
}

/**
 * Replaces a license's bound HWIDs in one transaction with the index items
 * it affects: the license only if its HWIDs are still the ones read (and its
 * subscription, when `subscriptionId` moves it), the new HWIDs' index items
 * claimed when `claim` is set, and the index items of the HWIDs it gives up
 * released where they point at this license (an index item of another
 * license that shares an HWID outside `single_key_per_hwid` is left alone).
 * `stale`: the license or an index item changed since it was read.
 */
export async function replaceHwids(table: Table, change: HwidChange): Promise<HwidChangeOutcome> {
  const { license, hwids } = change;
  const claimed = change.claim ? hwids.filter((hwid) => !license.hwids.includes(hwid) || change.claimKept) : [];
  const released = await heldBy(
    table,
    license,
    license.hwids.filter((hwid) => !hwids.includes(hwid) || change.releaseKept),
  );
  const roomForReleases = Math.max(0, maxTransactItems - 1 - claimed.length);
  const releasedNow = released.slice(0, roomForReleases);
  const write = new Update()
    .set(part('hwids = :hwids', { ':hwids': hwids }), part('hwid = :hwid', { ':hwid': hwids[0] ?? null }))
    .when(conditions.exists, conditions.boundAsRead(license));
  if (license.lease_seconds !== null) {
    // A floating license's leases follow its list (model/lease.ts): a device given up loses its lease, a device set gets a fresh one.
    license.hwids
      .filter((hwid) => !hwids.includes(hwid))
      .forEach((hwid, index) => write.remove(part(`leases.#gone${index}`, {}, { [`#gone${index}`]: hwid })));
    hwids
      .filter((hwid) => !license.hwids.includes(hwid))
      .forEach((hwid, index) => {
        if (change.now === undefined) throw new Error('replaceHwids needs `now` to lease a device to a floating license');
        const lease = storedLease({ expires_at: addSeconds(change.now, license.lease_seconds!), borrowed: false });
        write.set(part(`leases.#new${index} = :newLease${index}`, { [`:newLease${index}`]: lease }, { [`#new${index}`]: hwid }));
      });
  }
  if (change.returnedFile !== undefined) {
    const file = { '#returnedFile': change.returnedFile };
    write.remove(part('files.#returnedFile', {}, file)).when(part('attribute_exists(files.#returnedFile)', {}, file));
  }
  if (change.resetAt !== undefined) write.set(part('last_hwid_reset_at = :reset_at', { ':reset_at': change.resetAt }));
  if (change.expect) write.when(equalities(change.expect));
  if (change.subscriptionId !== undefined) {
    write
      .set(part('subscription_id = :new_subscription', { ':new_subscription': change.subscriptionId }))
      .when(part('subscription_id = :old_subscription', { ':old_subscription': license.subscription_id }));
  }
  const freeOrOurs = condition(conditions.freeOrHeldBy(license.key));
  const items: TransactItem[] = [
    { Update: { TableName: table.name, Key: keys.licenseOf(license), ...write.input() } },
    ...claimed.map((hwid) => ({ Put: { TableName: table.name, Item: hwidIndexItem({ app_id: license.app_id, hwid, license_key: license.key }), ...freeOrOurs } })),
    ...releasedNow.map((hwid) => ({ Delete: { TableName: table.name, Key: keys.hwid(license.app_id, hwid), ...freeOrOurs } })),
  ];
  const written = await conditional(transactWrite(table, items), 'race');
  if (written.held) {
    await releaseOverflow(table, license, released.slice(roomForReleases));
    return 'changed';
  }
  const { reasons } = written;
  const refused = claimed.filter((_, index) => reasons[1 + index] === 'ConditionalCheckFailed');
  if (reasons[0] === 'ConditionalCheckFailed' || refused.length === 0) return 'stale';
  // An item left by a release that ran out of room is no claim: once removed, the change is tried again.
  const freed = await Promise.all(refused.map((hwid) => releaseStaleIndexItem(table, license, hwid, change.now)));
  return freed.some(Boolean) ? 'stale' : 'hwid-in-use';
}

/**
 * Sets `max_devices` while the license still has the HWIDs it was read with
 * and no more than the new number. Writes `hwids` too, so an item from before
 * seats existed carries the list from now on. False when it changed since.
 */
export async function setMaxDevices(table: Table, license: License, maxDevices: number): Promise<boolean> {
  const write = new Update()
    .set(part('max_devices = :max', { ':max': maxDevices }), part('hwids = :readHwids', { ':readHwids': license.hwids }))
    .when(part('team_id = :team', { ':team': license.team_id }), conditions.boundAsRead(license));
  const written = await conditional(transactWrite(table, [{ Update: { TableName: table.name, Key: keys.licenseOf(license), ...write.input() } }]), 'race');
  return written.held;
}

