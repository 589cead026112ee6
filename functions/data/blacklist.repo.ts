import { deleteExisting, putItem, readPage, updateItem, type Table } from './db';
import { keys } from './keys';
import { blacklistEntrySchema, type BlacklistEntry, type BlacklistType } from './model/blacklist';

export function blacklistItem(entry: BlacklistEntry): Record<string, unknown> {
  return { ...keys.blacklist(entry.app_id, entry.type, entry.value), ...entry };
}

/** Adds or replaces (a new reason) an entry. */
export async function put(table: Table, entry: BlacklistEntry): Promise<void> {
  await putItem(table, blacklistItem(entry));
}

/** False when there was no such entry. */
export function remove(table: Table, appId: string, type: BlacklistType, value: string): Promise<boolean> {
  return deleteExisting(table, keys.blacklist(appId, type, value));
}

/** An app's entries, of one type when given, ordered by type then value; `after` is the last entry of the page before. */
export async function list(
  table: Table,
  appId: string,
  type: BlacklistType | undefined,
  limit: number,
  after?: Pick<BlacklistEntry, 'type' | 'value'>,
): Promise<BlacklistEntry[]> {
  const page = await readPage(
    table,
    { KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)', ExpressionAttributeValues: { ':pk': keys.app(appId).pk, ':prefix': keys.blacklistPrefix(type) }, Limit: limit },
    after && { ...keys.blacklist(appId, after.type, after.value) },
  );
  return page.items.map((item) => blacklistEntrySchema.parse(item));
}

/**
 * Adds an entry, or gives an existing one the new reason while keeping the
 * time it was first added. Returns the entry as stored.
 */
export async function add(table: Table, entry: BlacklistEntry): Promise<BlacklistEntry> {
  const { Attributes } = await updateItem(table, keys.blacklist(entry.app_id, entry.type, entry.value), {
    UpdateExpression: 'SET app_id = :app_id, #type = :type, #value = :value, reason = :reason, created_at = if_not_exists(created_at, :created_at)',
    ExpressionAttributeNames: { '#type': 'type', '#value': 'value' },
    ExpressionAttributeValues: {
      ':app_id': entry.app_id,
      ':type': entry.type,
      ':value': entry.value,
      ':reason': entry.reason,
      ':created_at': entry.created_at,
    },
    ReturnValues: 'ALL_NEW',
  });
  return blacklistEntrySchema.parse(Attributes);
}
