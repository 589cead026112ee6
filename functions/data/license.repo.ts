import { batchGetItems, itemId } from './batch-get';
import { batchWrite, conditional, maxTransactItems, putNew, transactWrite, updateItem, type Table, type TransactItem } from './db';
import { assignments, conditions, equalities, part, Update } from './expressions';
import { releaseOverflow } from './hwid-overflow';
import { licenseItem, usernameIndexItem } from './items';
import { keys, type ItemKey } from './keys';
import { parseLicense, type ExpiryChange, type License, type LicenseFlag, type LicenseSettings } from './model/license';
import { withBackoff } from './retry';

/**
 * The license a team knows by this key: its own custom key, or a key of
 * the shared namespace (which may belong to another team: the caller
 * checks ownership, so that case reads as missing).
 */
export async function get(table: Table, licenseKey: string, teamId: string): Promise<License | undefined> {
  return (await getMany(table, [licenseKey], teamId)).get(licenseKey);
}

/** Licenses by key as `get` finds them, unprocessed keys retried with backoff; absent keys are absent from the map. */
export async function getMany(table: Table, licenseKeys: string[], teamId: string): Promise<Map<string, License>> {
  const items = await batchGetItems(
    table,
    licenseKeys.flatMap((key) => keys.licenseCandidates(key, teamId)),
  );
  const found = new Map<string, License>();
  for (const key of licenseKeys) {
    const [shared, scoped] = keys.licenseCandidates(key, teamId).map((candidate) => items.get(itemId(candidate)));
    const item = scoped ?? shared;
    if (item) found.set(key, parseLicense(item));
  }
  return found;
}

/** Every license a team may mean by this key, in one read: its own custom key and the shared namespace's, either absent. */
export async function candidates(table: Table, licenseKey: string, teamId: string): Promise<License[]> {
  return readItems(table, keys.licenseCandidates(licenseKey, teamId));
}

/** Licenses by item key (a bound-device entry names its license's item), in that order; a missing one is left out. */
export async function readItems(table: Table, itemKeys: ItemKey[]): Promise<License[]> {
  if (itemKeys.length === 0) return [];
  const items = await batchGetItems(table, itemKeys);
  return itemKeys.flatMap((key) => {
    const item = items.get(itemId(key));
    return item ? [parseLicense(item)] : [];
  });
}

/**
 * As `get`, one item at a time: the shared namespace first, where every
 * generated key lives, so the usual license costs one read rather than two.
 */
export async function getSharedFirst(table: Table, licenseKey: string, teamId: string): Promise<License | undefined> {
  // One key per batch: the license function is granted BatchGetItem on licenses, and a batch of one costs what a GetItem does.
  for (const key of keys.licenseCandidates(licenseKey, teamId)) {
    const item = (await batchGetItems(table, [key])).get(itemId(key));
    if (item) return parseLicense(item);
  }
  return undefined;
}

/** False when the key is taken. */
export function create(table: Table, license: License): Promise<boolean> {
  return putNew(table, licenseItem(license));
}

/**
 * Up to 100 new licenses in one transaction: all written, or none when any
 * key exists already (BatchWriteItem cannot carry that condition). `alongside`
 * are written in the same transaction (a bulk request's record of its progress).
 */
export async function createAll(table: Table, licenses: License[], alongside: TransactItem[] = []): Promise<'created' | 'key_taken'> {
  return (await transact(table, [...licenses.map((license) => newLicense(table, license)), ...alongside])) ? 'key_taken' : 'created';
}

/** A license with its username index item, together or not at all. */
export async function createWithCredentials(table: Table, license: License, passwordHash: string): Promise<'created' | 'key_taken' | 'username_taken'> {
  const username = license.username;
  if (username === null) throw new Error('createWithCredentials needs a license with a username');
  const reasons = await transact(table, [
    newLicense(table, license),
    {
      Put: {
        TableName: table.name,
        Item: usernameIndexItem({ app_id: license.app_id, username, license_key: license.key, password_hash: passwordHash }),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ]);
  if (!reasons) return 'created';
  return reasons[0] === 'ConditionalCheckFailed' ? 'key_taken' : 'username_taken';
}

/** Removes licenses unconditionally (undoing a bulk create), retrying unprocessed items with backoff. */
export async function deleteAll(table: Table, licenses: License[]): Promise<void> {
  await batchWrite(
    table,
    licenses.map((license) => ({ DeleteRequest: { Key: keys.licenseOf(license) } })),
    'deletes',
  );
}

/**
 * Replaces expiry fields of a license as read, only if nobody changed them
 * since (a concurrent extend or first activation makes it 'changed': read
 * again and recompute). A transaction even for one item: its token makes a
 * resent attempt succeed instead of failing its own condition, which would
 * read as 'changed' and extend the license a second time. With a marker,
 * the marker is created in the same transaction: an existing marker means
 * this work was done already.
 */
export async function replaceExpiry(table: Table, change: ExpiryChange): Promise<'updated' | 'already_done' | 'changed'> {
  const reasons = await transact(table, expiryItems(table, change));
  if (!reasons) return 'updated';
  return change.marker && reasons[0] === 'ConditionalCheckFailed' ? 'already_done' : 'changed';
}

/**
 * Several expiry changes in one transaction (at most 100 items: 50 with
 * markers), all or none: 'changed' when any condition failed or the store
 * refused the request outright (none was applied either way), 'unknown'
 * when the write kept failing in a way that may hide an applied one. Sent
 * again with the same changes in the same API request, the transaction has
 * the same token, so one that was applied unheard answers 'updated' then.
 */
export async function replaceExpiries(table: Table, changes: ExpiryChange[]): Promise<'updated' | 'changed' | 'unknown'> {
  try {
    return (await transact(table, changes.flatMap((change) => expiryItems(table, change)))) ? 'changed' : 'updated';
  } catch (error) {
    // A client fault is a refusal before anything was written, except a transaction of the same token still running.
    const fault = (error as { $fault?: string; name?: string } | null) ?? {};
    return fault.$fault === 'client' && fault.name !== 'TransactionInProgressException' ? 'changed' : 'unknown';
  }
}

/**
 * Deletes a license as read, with the index items that point at it, in one
 * transaction. The license must still have the HWIDs and username it was
 * read with, so a concurrent bind or rename cannot leave an orphaned index
 * item. An index item held by another license (same HWID bound elsewhere)
 * is left alone, and checked to still be so.
 */
export async function remove(table: Table, license: License, holds: { hwidIndex: readonly string[]; usernameIndex: boolean }): Promise<boolean> {
  const indexItem = (key: ItemKey, held: boolean): TransactItem =>
    held
      ? {
          Delete: {
            TableName: table.name,
            Key: key,
            ConditionExpression: 'license_key = :key',
            ExpressionAttributeValues: { ':key': license.key },
          },
        }
      : {
          ConditionCheck: {
            TableName: table.name,
            Key: key,
            ConditionExpression: 'attribute_not_exists(pk) OR license_key <> :key',
            ExpressionAttributeValues: { ':key': license.key },
          },
        };
  const bound = conditions.boundAsRead(license);
  const items: TransactItem[] = [
    {
      Delete: {
        TableName: table.name,
        Key: keys.licenseOf(license),
        ConditionExpression: `team_id = :team AND ${bound.text} AND username = :username`,
        ExpressionAttributeValues: { ':team': license.team_id, ':username': license.username, ...bound.values },
      },
    },
  ];
  if (license.username !== null) items.push(indexItem(keys.username(license.app_id, license.username), holds.usernameIndex));
  // A license with nearly 100 devices has more index items than the transaction has room for: the ones it
  // holds beyond that are deleted right after, and a check on one it does not hold is left out.
  const room = maxTransactItems - items.length;
  const deviceItems = license.hwids.map((hwid) => ({ hwid, held: holds.hwidIndex.includes(hwid) }));
  items.push(...deviceItems.slice(0, room).map(({ hwid, held }) => indexItem(keys.hwid(license.app_id, hwid), held)));
  if (await transact(table, items)) return false;
  const overflow = deviceItems.slice(room).filter(({ held }) => held);
  await releaseOverflow(table, license, overflow.map(({ hwid }) => hwid));
  return true;
}

/**
 * Sets a flag of a license as read to the opposite of what was read, only
 * if it still holds that value, so two concurrent flips are two flips. A
 * transaction, so that a resent attempt is not taken for a concurrent flip
 * and flipped back. Undefined when the flag (or the owner) changed since.
 */
export async function flip(table: Table, license: License, flag: LicenseFlag): Promise<License | undefined> {
  const reasons = await transact(table, [
    {
      Update: {
        TableName: table.name,
        Key: keys.licenseOf(license),
        UpdateExpression: 'SET #flag = :new',
        ConditionExpression: 'team_id = :team AND #flag = :old',
        ExpressionAttributeNames: { '#flag': flag },
        ExpressionAttributeValues: { ':new': !license[flag], ':old': license[flag], ':team': license.team_id },
      },
    },
  ]);
  return reasons ? undefined : { ...license, [flag]: !license[flag] };
}

/**
 * Sets fields of a license of this team, only while every field in
 * `expected` still holds the value it was read with. Every value set is a
 * constant, so a resent attempt writes the same again. The team check in
 * the same condition makes another owner's license indistinguishable from
 * a missing one. Undefined when any condition fails; otherwise the license
 * as stored afterwards.
 */
export async function updateFields(
  table: Table,
  licenseKey: string,
  teamId: string,
  changes: Partial<LicenseSettings>,
  expected: Partial<Pick<License, keyof LicenseSettings | 'app_id'>> = {},
  appScope?: ReadonlySet<string>,
): Promise<License | undefined> {
  const unchanged = equalities(expected);
  const write = new Update().set(assignments(changes));
  if (unchanged.text) write.when(unchanged);
  return updateOwned(table, licenseKey, teamId, write, appScope);
}

/**
 * Sets a license's customer email, or removes it (null), under the conditions
 * of `updateFields`: the email given is the whole change, so a resent attempt
 * leaves the license as the first one did.
 */
export async function updateEmail(table: Table, licenseKey: string, teamId: string, email: string | null, appScope?: ReadonlySet<string>): Promise<License | undefined> {
  const write = email === null ? new Update().remove(part('email')) : new Update().set(part('email = :email', { ':email': email }));
  return updateOwned(table, licenseKey, teamId, write, appScope);
}

/** Writes `write` to the license of this team that the key names, if any (see `updateFields`). */
async function updateOwned(table: Table, licenseKey: string, teamId: string, write: Update, appScope?: ReadonlySet<string>): Promise<License | undefined> {
  // An API key limited to applications (at most 50: IN takes 100) writes only their licenses.
  const scope = [...(appScope ?? [])].map((appId, index) => [`:scope${index}`, appId] as const);
  write.when(part('team_id = :team', { ':team': teamId }));
  if (appScope) write.when(part(`app_id IN (${scope.map(([name]) => name).join(', ')})`, Object.fromEntries(scope)));
  // The key names the license in the shared namespace or under the team; the team condition makes the wrong one fail.
  for (const key of keys.licenseCandidates(licenseKey, teamId)) {
    // A write that meets a running transaction on the license is refused (TransactionConflictException): wait and send it again.
    const written = await conditional(withBackoff(() => updateItem(table, key, { ...write.input(), ReturnValues: 'ALL_NEW' })));
    if (written.held) return parseLicense(written.answer.Attributes!);
  }
  return undefined;
}

/** The transaction's reasons when a condition failed; undefined when it was written. */
async function transact(table: Table, items: TransactItem[]): Promise<(string | undefined)[] | undefined> {
  const written = await conditional(transactWrite(table, items));
  return written.held ? undefined : written.reasons;
}

function expiryItems(table: Table, { before, after, marker }: ExpiryChange): TransactItem[] {
  const update: TransactItem = {
    Update: {
      TableName: table.name,
      Key: keys.licenseOf(before),
      UpdateExpression: 'SET expires_at = :expires, initial_duration = :duration',
      ConditionExpression: 'team_id = :team AND expires_at = :oldExpires AND initial_duration = :oldDuration',
      ExpressionAttributeValues: {
        ':expires': after.expires_at,
        ':duration': after.initial_duration,
        ':team': before.team_id,
        ':oldExpires': before.expires_at,
        ':oldDuration': before.initial_duration,
      },
    },
  };
  if (!marker) return [update];
  return [{ Put: { TableName: table.name, Item: { ...marker.id, ttl: marker.ttl }, ConditionExpression: 'attribute_not_exists(pk)' } }, update];
}

function newLicense(table: Table, license: License): TransactItem {
  return { Put: { TableName: table.name, Item: licenseItem(license), ConditionExpression: 'attribute_not_exists(pk)' } };
}
