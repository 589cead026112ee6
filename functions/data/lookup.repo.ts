import { itemId } from './batch-get';
import { batchWrite, readPage, type Table } from './db';
import { keys, type ItemKey } from './keys';
import { boundDevicesOf, maxLicensesPerDevice, maxLicensesPerEmail, type EntryChange } from './model/lookup';

/** The lookup entries a license item has, by item id; none for an item that is no license of an app. */
function entriesOf(license: Record<string, unknown> | undefined): Map<string, EntryChange> {
  const entries = new Map<string, EntryChange>();
  if (!license || typeof license.app_id !== 'string' || typeof license.pk !== 'string') return entries;
  const { app_id: appId, pk: licensePk } = license;
  const add = (key: ItemKey, fields: Record<string, unknown>) =>
    entries.set(itemId(key), { key, item: { ...key, app_id: appId, license_key: license.key, license_pk: licensePk, ...fields } });
  for (const hwid of boundDevicesOf(license)) add(keys.boundDevice(appId, hwid, licensePk), { hwid });
  if (typeof license.expires_at === 'string') add(keys.licenseByExpiry(appId, license.expires_at, licensePk), { expires_at: license.expires_at });
  if (typeof license.email === 'string') add(keys.licenseByEmail(appId, license.email, licensePk), { email: license.email });
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

/**
 * Puts and deletes entries, the last change of each entry winning, retrying
 * unprocessed requests with backoff. Unconditional, yet safe to send again:
 * an entry's state follows from its license's latest change, which the
 * stream delivers in order, so a resent batch ends in the same state.
 */
export async function apply(table: Table, changes: readonly EntryChange[]): Promise<void> {
  const last = new Map<string, EntryChange>();
  for (const change of changes) {
    const id = itemId(change.key);
    last.delete(id);
    last.set(id, change);
  }
  const requests = [...last.values()].map((change) => (change.item ? { PutRequest: { Item: change.item } } : { DeleteRequest: { Key: change.key } }));
  await batchWrite(table, requests, 'lookup entries');
}

/** The item keys of the licenses whose entries make one partition, at most `limit` (one query). */
async function licensesListedIn(table: Table, partitionKey: string, limit: number): Promise<ItemKey[]> {
  const page = await readPage(table, {
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': partitionKey },
    ProjectionExpression: 'sk',
    Limit: limit,
  });
  return page.items.map((item) => ({ pk: String(item.sk), sk: keys.license('').sk }));
}

/** The item keys of the licenses that list `hwid` as bound, at most `maxLicensesPerDevice` (one query). */
export async function licensesBoundTo(table: Table, appId: string, hwid: string): Promise<ItemKey[]> {
  return licensesListedIn(table, keys.devicesOf(appId, hwid), maxLicensesPerDevice);
}

/**
 * The item keys of the application's licenses that carry `email` (as stored:
 * lower-cased), at most `maxLicensesPerEmail` (one query). The entries follow
 * the stream: a caller confirms each license it reads still carries the email.
 */
export async function licensesWithEmail(table: Table, appId: string, email: string): Promise<ItemKey[]> {
  return licensesListedIn(table, keys.licensesOfEmail(appId, email), maxLicensesPerEmail);
}
