import { conditional, getItem, pages, putNew, queryIndexPartition, updateExisting, updateItem, type Table } from './db';
import { assignments } from './expressions';
import { keys } from './keys';
import { appSchema, type App, type AppChange, type AppSettingsChange, type StoredSigningKey } from './model/app';

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
      const written = await conditional(
        updateItem(
          table,
          keys.app(appId),
          { UpdateExpression: 'SET signing_key = :key', ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(signing_key)', ExpressionAttributeValues: { ':key': key } },
          { unstamped: true },
        ),
      );
      if (written.held) return key;
      const item = await getItem(table, keys.app(appId), { consistentRead: true });
      return item ? appSchema.parse(item).signing_key : undefined;
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
      const unlisted = pages(
        table,
        { FilterExpression: 'sk = :sk AND begins_with(pk, :prefix) AND attribute_not_exists(gsi1pk)', ExpressionAttributeValues: { ':sk': keys.app('').sk, ':prefix': keys.app('').pk } },
        { scan: true },
      );
      for await (const items of unlisted) {
        for (const item of items) {
          const app = appSchema.parse(item);
          const entry = keys.appByTeam(app.team_id, app.created_at, app.app_id);
          const written = await conditional(
            updateItem(
              table,
              keys.app(app.app_id),
              {
                UpdateExpression: 'SET gsi1pk = :pk, gsi1sk = :sk',
                ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(gsi1pk)',
                ExpressionAttributeValues: { ':pk': entry.gsi1pk, ':sk': entry.gsi1sk },
              },
              { unstamped: true },
            ),
          );
          // Not held: another run indexed it first, or it was deleted meanwhile; nothing left to do for it.
          if (written.held) indexed += 1;
        }
      }
      return indexed;
    },
  };
}
