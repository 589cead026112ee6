import { getItem, type Table } from './db';
import { keys } from './keys';
import { usernameIndexSchema, type UsernameIndex } from './model/username';

export function usernameIndexItem(entry: UsernameIndex): Record<string, unknown> {
  return { ...keys.username(entry.app_id, entry.username), ...entry };
}

export function createUsernameRepo(table: Table) {
  return {
    async get(appId: string, username: string): Promise<UsernameIndex | undefined> {
      const item = await getItem(table, keys.username(appId, username));
      return item ? usernameIndexSchema.parse(item) : undefined;
    },
  };
}
