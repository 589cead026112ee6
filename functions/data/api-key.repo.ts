import { conditional, getItem, putNew, queryIndexPartition, updateExisting, updateItem, type Table } from './db';
import { keys } from './keys';
import { apiKeySchema, type ApiKeyRecord } from './model/api-key';

export async function get(table: Table, keyHash: string): Promise<ApiKeyRecord | undefined> {
  const item = await getItem(table, keys.apiKey(keyHash));
  return item ? apiKeySchema.parse(item) : undefined;
}

/** A key with an id is listed under its team. */
export function create(table: Table, record: ApiKeyRecord): Promise<boolean> {
  const listed = record.key_id === undefined ? {} : keys.apiKeyByTeam(record.team_id, record.created_at, record.key_id);
  return putNew(table, { ...keys.apiKey(record.key_hash), ...listed, ...record });
}

/** The team's keys made with an id, oldest first; a team holds few. */
export async function listByTeam(table: Table, teamId: string): Promise<ApiKeyRecord[]> {
  return (await queryIndexPartition(table, keys.apiKeysOfTeam(teamId))).map((item) => apiKeySchema.parse(item));
}

/** False when no such key exists. */
export function revoke(table: Table, keyHash: string): Promise<boolean> {
  return updateExisting(table, keys.apiKey(keyHash), 'SET #status = :revoked', { ':revoked': 'revoked' }, { '#status': 'status' });
}

/**
 * Revokes a key of the team; false when the team has no such key. Revoking
 * a revoked key again changes nothing, so a retried request succeeds.
 */
export async function revokeOfTeam(table: Table, keyHash: string, teamId: string, at: string): Promise<boolean> {
  const written = await conditional(
    updateItem(table, keys.apiKey(keyHash), {
      UpdateExpression: 'SET #status = :revoked, revoked_at = if_not_exists(revoked_at, :at)',
      ConditionExpression: 'attribute_exists(pk) AND team_id = :team',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':revoked': 'revoked', ':at': at, ':team': teamId },
    }),
  );
  return written.held;
}
