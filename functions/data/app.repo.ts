import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { getItem, putNew, queryIndexPartition, scanPages, updateExisting, type Table } from './db';
import { assignments } from './expressions';
import { keys } from './keys';
import { isConditionFailure } from './retry';

/** An application's current Ed25519 key pair; the private half only as the key vault's ciphertext. */
export const storedSigningKeySchema = z.lazy(() =>
  z.object({
    key_id: z.string(),
    /** The raw 32-byte public key, base64url. */
    public_key: z.string(),
    private_key_ciphertext: z.string(),
    created_at: z.string(),
  }),
);
export type StoredSigningKey = z.infer<typeof storedSigningKeySchema>;

export const appSchema = z.lazy(() =>
  z.object({
    app_id: z.string(),
    team_id: z.string(),
    name: z.string(),
    status: z.enum(['active', 'inactive']),
    created_at: z.string(),
    /** Absent on applications made before signing existed, until their first need. */
    signing_key: z.optional(storedSigningKeySchema),
    /** Seconds an offline token lives at most; absent: the default. */
    offline_token_ttl: z.optional(z.number()),
    /** The longest `borrow_seconds` /auth accepts; absent: the default of leases.ts. */
    max_borrow_seconds: z.optional(z.int()),
    /** What a new license gets when its create request does not say; absent: the defaults of new-license.ts. */
    default_hwid_reset_allowed: z.optional(z.boolean()),
    default_hwid_reset_interval: z.optional(z.int().check(z.nonnegative())),
  }),
);
export type App = z.infer<typeof appSchema>;

/** The owner's settings of an application (`/app/settings`): a change of any of them is an `app.settings_changed` event. */
export const appSettingsFields = ['offline_token_ttl', 'default_hwid_reset_allowed', 'default_hwid_reset_interval', 'max_borrow_seconds'] as const satisfies readonly (keyof App)[];

/** What `/app/update` and the admin CLI's `app rename` and `app set-status` change: an `app.updated` event. */
export type AppChange = Partial<Pick<App, 'name' | 'status'>>;

/** The settings an owner changes through /app/settings. */
export type AppSettingsChange = Partial<Pick<App, (typeof appSettingsFields)[number]>>;

export function createAppRepo(table: Table) {
  const setFields = (appId: string, fields: Record<string, unknown>): Promise<boolean> => {
    const set = assignments(Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)));
    return updateExisting(table, keys.app(appId), `SET ${set.text}`, set.values, set.names);
  };

  return {
    async get(appId: string): Promise<App | undefined> {
      const item = await getItem(table, keys.app(appId));
      return item ? appSchema.parse(item) : undefined;
    },

    create(app: App): Promise<boolean> {
      return putNew(table, { ...keys.app(app.app_id), ...keys.appByTeam(app.team_id, app.created_at, app.app_id), ...app });
    },

    /**
     * Stores the first key of an application that has none. Of two racing
     * writers (or a write whose answer was lost and is resent) the stored key
     * wins: the loser gets the winner's key back from a consistent read.
     */
    async setSigningKeyIfAbsent(appId: string, key: StoredSigningKey): Promise<StoredSigningKey | undefined> {
      try {
        await table.doc.send(
          new UpdateCommand({
            TableName: table.name,
            Key: keys.app(appId),
            UpdateExpression: 'SET signing_key = :key',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(signing_key)',
            ExpressionAttributeValues: { ':key': key },
          }),
        );
        return key;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
      const { Item } = await table.doc.send(new GetCommand({ TableName: table.name, Key: keys.app(appId), ConsistentRead: true }));
      return Item ? appSchema.parse(Item).signing_key : undefined;
    },

    /** Rotation: the new key replaces the current one; resending the same key sets the same value. */
    replaceSigningKey(appId: string, key: StoredSigningKey): Promise<boolean> {
      return updateExisting(table, keys.app(appId), 'SET signing_key = :key', { ':key': key });
    },

    /** Every setting sent, in one write; sent again it sets the same values. False: no such application. */
    updateSettings: (appId: string, change: AppSettingsChange): Promise<boolean> => setFields(appId, change),

    /** The name and status sent, in one write, as settings are. */
    update: (appId: string, change: AppChange): Promise<boolean> => setFields(appId, change),

    /** A team has a handful of applications: all of them, oldest first. */
    async listByTeam(teamId: string): Promise<App[]> {
      return (await queryIndexPartition(table, keys.appsOfTeam(teamId))).map((item) => appSchema.parse(item));
    },

    /**
     * Applications created before they were listed per team carry no index
     * entry: this gives each one its entry (a scan, so for `npm start` and the
     * admin CLI, never a request path). Returns how many it indexed.
     */
    async indexUnlisted(): Promise<number> {
      let indexed = 0;
      const pages = scanPages(table, {
        expression: 'sk = :sk AND begins_with(pk, :prefix) AND attribute_not_exists(gsi1pk)',
        values: { ':sk': keys.app('').sk, ':prefix': keys.app('').pk },
      });
      for await (const items of pages) {
        for (const item of items) {
          const app = appSchema.parse(item);
          const entry = keys.appByTeam(app.team_id, app.created_at, app.app_id);
          try {
            await table.doc.send(
              new UpdateCommand({
                TableName: table.name,
                Key: keys.app(app.app_id),
                UpdateExpression: 'SET gsi1pk = :pk, gsi1sk = :sk',
                ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(gsi1pk)',
                ExpressionAttributeValues: { ':pk': entry.gsi1pk, ':sk': entry.gsi1sk },
              }),
            );
            indexed += 1;
          } catch (error) {
            // Another run indexed it first, or it was deleted meanwhile: nothing left to do for it.
            if (!isConditionFailure(error)) throw error;
          }
        }
      }
      return indexed;
    },
  };
}
