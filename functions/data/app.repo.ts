import * as z from 'zod/mini';
import { getItem, putNew, updateExisting, type Table } from './db';
import { keys } from './keys';

export const appSchema = z.object({
  app_id: z.string(),
  team_id: z.string(),
  name: z.string(),
  status: z.enum(['active', 'inactive']),
  created_at: z.string(),
});
export type App = z.infer<typeof appSchema>;

export function createAppRepo(table: Table) {
  return {
    async get(appId: string): Promise<App | undefined> {
      const item = await getItem(table, keys.app(appId));
      return item ? appSchema.parse(item) : undefined;
    },

    create(app: App): Promise<boolean> {
      return putNew(table, { ...keys.app(app.app_id), ...app });
    },

    setStatus(appId: string, status: App['status']): Promise<boolean> {
      return updateExisting(table, keys.app(appId), 'SET #status = :status', { ':status': status }, { '#status': 'status' });
    },
  };
}
