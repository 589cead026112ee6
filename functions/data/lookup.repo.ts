import { itemId } from './batch-get';
import { batchWrite, getItem, pages, putNew, readPage, type Table } from './db';
import { keys, type ItemKey } from './keys';
import { boundDevicesOf, lookupMigration, maxLicensesPerDevice, type EntryChange } from './model/lookup';

/** The lookup entries a license item has, by item id; none for an item that is no license of an app. */
function entriesOf(license: Record<string, unknown> | undefined): Map<string, EntryChange> {
  const entries = new Map<string, EntryChange>();
  if (!license || typeof license.app_id !== 'string' || typeof license.pk !== 'string') return entries;
  const { app_id: appId, pk: licensePk } = license;
  const add = (key: ItemKey, fields: Record<string, unknown>) =>
    entries.set(itemId(key), { key, item: { ...key, app_id: appId, license_key: license.key, license_pk: licensePk, ...fields } });
  for (const hwid of boundDevicesOf(license)) add(keys.boundDevice(appId, hwid, licensePk), { hwid });
  if (typeof license.expires_at === 'string') add(keys.licenseByExpiry(appId, license.expires_at, licensePk), { expires_at: license.expires_at });
  return entries;
}

/** What a license item's change (an image absent for a create or a delete) does to its lookup entries. */
export function lookupChanges(before: Record<string, unknown> | undefined, after: Record<string, unknown> | undefined): EntryChange[] {
  const [had, has] = [entriesOf(before), entriesOf(after)];
  return [
    ...[...had].filter(([id]) => !has.has(id)).map(([, entry]) => ({ key: entry.key })),
    ...[...has].filter(([id]) => !had.has(id)).map(([, entry]) => entry),
  ];
}

export function createLookupRepo(table: Table) {
  /**
   * Puts and deletes entries, the last change of each entry winning, retrying
   * unprocessed requests with backoff. Unconditional, yet safe to send again:
   * an entry's state follows from its license's latest change, which the
   * stream delivers in order, so a resent batch ends in the same state.
   */
  async function apply(changes: readonly EntryChange[]): Promise<void> {
    const last = new Map<string, EntryChange>();
    for (const change of changes) {
      const id = itemId(change.key);
      last.delete(id);
      last.set(id, change);
    }
    const requests = [...last.values()].map((change) => (change.item ? { PutRequest: { Item: change.item } } : { DeleteRequest: { Key: change.key } }));
    await batchWrite(table, requests, 'lookup entries');
  }

  return {
    apply,

    /** The item keys of the licenses that list `hwid` as bound, at most `maxLicensesPerDevice` (one query). */
    async licensesBoundTo(appId: string, hwid: string): Promise<ItemKey[]> {
      const page = await readPage(table, {
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.devicesOf(appId, hwid) },
        ProjectionExpression: 'sk',
        Limit: maxLicensesPerDevice,
      });
      return page.items.map((item) => ({ pk: String(item.sk), sk: keys.license('').sk }));
    },

    /**
     * Writes the entries of every license (a scan, so for the admin CLI and
     * `npm start`, never a request path; docs/deployment.md, "Upgrading a
     * deployed table"): for licenses bound or activated before the events
     * consumer kept these entries. Safe to run again or beside the service: a
     * put writes what the consumer would. Marks the table as migrated.
     */
    async writeAll(): Promise<{ licenses: number; entries: number }> {
      let licenses = 0;
      let entries = 0;
      const licenseItems = pages(
        table,
        {
          FilterExpression: 'sk = :sk AND begins_with(pk, :prefix)',
          ExpressionAttributeValues: { ':sk': keys.license('').sk, ':prefix': keys.license('').pk },
          ProjectionExpression: 'pk, app_id, #key, hwid, hwids, expires_at',
          ExpressionAttributeNames: { '#key': 'key' },
        },
        { scan: true },
      );
      for await (const items of licenseItems) {
        const changes = items.flatMap((item) => lookupChanges(undefined, item));
        licenses += items.length;
        entries += changes.length;
        await apply(changes);
      }
      await putNew(table, { ...keys.migration(lookupMigration), done: true });
      return { licenses, entries };
    },

    /** Whether `writeAll` ran on this table. */
    async written(): Promise<boolean> {
      return (await getItem(table, keys.migration(lookupMigration))) !== undefined;
    },
  };
}
