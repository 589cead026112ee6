import { getItem, type Table } from './db';
import { keys } from './keys';
import { usernameIndexSchema, type UsernameIndex } from './model/username';

export async function get(table: Table, appId: string, username: string): Promise<UsernameIndex | undefined> {
  const item = await getItem(table, keys.username(appId, username));
  return item ? usernameIndexSchema.parse(item) : undefined;
}
