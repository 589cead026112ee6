import * as z from 'zod/mini';
import { getItem, putNew, updateExisting, type Table } from './db';
import { keys } from './keys';

/** The key itself is never stored: only its SHA-256, which is also the lookup key. */
export const apiKeySchema = z.object({
  key_hash: z.string(),
  team_id: z.string(),
  status: z.enum(['active', 'revoked']),
  created_at: z.string(),
  /** Value of the API Gateway key this key is metered under (deployed stacks only). */
  usage_identifier_key: z.optional(z.string()),
});
export type ApiKeyRecord = z.infer<typeof apiKeySchema>;

export function createApiKeyRepo(table: Table) {
  return {
    async get(keyHash: string): Promise<ApiKeyRecord | undefined> {
      const item = await getItem(table, keys.apiKey(keyHash));
      return item ? apiKeySchema.parse(item) : undefined;
    },

    create(record: ApiKeyRecord): Promise<boolean> {
      return putNew(table, { ...keys.apiKey(record.key_hash), ...record });
    },

    /** False when no such key exists. */
    revoke(keyHash: string): Promise<boolean> {
      return updateExisting(table, keys.apiKey(keyHash), 'SET #status = :revoked', { ':revoked': 'revoked' }, { '#status': 'status' });
    },
  };
}
