import * as z from 'zod/mini';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { roles } from '../access';
import { conditionHeld, getItem, putNew, queryIndexPartition, stampUpdate, updateExisting, type Table } from './db';
import { keys } from './keys';

/**
 * The key itself is never stored: only its SHA-256, which is also the lookup
 * key. Keys made before roles have no role, id, name or hint, and no entry in
 * the team's listing: they keep full rights (functions/access.ts).
 */
export const apiKeySchema = z.lazy(() =>
  z.object({
    key_hash: z.string(),
    team_id: z.string(),
    status: z.enum(['active', 'revoked']),
    created_at: z.string(),
    /** Value of the API Gateway key this key is metered under (deployed stacks only). */
    usage_identifier_key: z.optional(z.string()),
    /** What owners name a key by: never its hash. */
    key_id: z.optional(z.string()),
    role: z.optional(z.enum(roles)),
    /** The applications the key may reach; absent: all of the team's. */
    apps: z.optional(z.array(z.string())),
    name: z.optional(z.string()),
    /** The key's first characters, so an owner can tell keys apart without the key. */
    hint: z.optional(z.string()),
    revoked_at: z.optional(z.string()),
  }),
);
export type ApiKeyRecord = z.infer<typeof apiKeySchema>;

export function createApiKeyRepo(table: Table) {
  return {
    async get(keyHash: string): Promise<ApiKeyRecord | undefined> {
      const item = await getItem(table, keys.apiKey(keyHash));
      return item ? apiKeySchema.parse(item) : undefined;
    },

    /** A key with an id is listed under its team. */
    create(record: ApiKeyRecord): Promise<boolean> {
      const listed = record.key_id === undefined ? {} : keys.apiKeyByTeam(record.team_id, record.created_at, record.key_id);
      return putNew(table, { ...keys.apiKey(record.key_hash), ...listed, ...record });
    },

    /** The team's keys made with an id, oldest first; a team holds few. */
    async listByTeam(teamId: string): Promise<ApiKeyRecord[]> {
      return (await queryIndexPartition(table, keys.apiKeysOfTeam(teamId))).map((item) => apiKeySchema.parse(item));
    },

    /** False when no such key exists. */
    revoke(keyHash: string): Promise<boolean> {
      return updateExisting(table, keys.apiKey(keyHash), 'SET #status = :revoked', { ':revoked': 'revoked' }, { '#status': 'status' });
    },

    /**
     * Revokes a key of the team; false when the team has no such key. Revoking
     * a revoked key again changes nothing, so a retried request succeeds.
     */
    revokeOfTeam(keyHash: string, teamId: string, at: string): Promise<boolean> {
      return conditionHeld(
        table.doc.send(
          new UpdateCommand(
            stampUpdate(table, {
              TableName: table.name,
              Key: keys.apiKey(keyHash),
              UpdateExpression: 'SET #status = :revoked, revoked_at = if_not_exists(revoked_at, :at)',
              ConditionExpression: 'attribute_exists(pk) AND team_id = :team',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':revoked': 'revoked', ':at': at, ':team': teamId },
            }),
          ),
        ),
      );
    },
  };
}
