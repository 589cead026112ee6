import * as z from 'zod';
import { getItem, type Table } from './db';
import { keys } from './keys';

/**
 * HWID index: one item per device bound under a `single_key_per_hwid`
 * subscription. Creating it under `attribute_not_exists` in the same transaction
 * as the license update is what makes one-device-one-license atomic.
 */
export const hwidIndexSchema = z.object({
  app_id: z.string(),
  hwid: z.string(),
  license_key: z.string(),
});
export type HwidIndex = z.infer<typeof hwidIndexSchema>;

export function hwidIndexItem(entry: HwidIndex): Record<string, unknown> {
  return { ...keys.hwid(entry.app_id, entry.hwid), ...entry };
}

export function createHwidRepo(table: Table) {
  return {
    async get(appId: string, hwid: string): Promise<HwidIndex | undefined> {
      const item = await getItem(table, keys.hwid(appId, hwid));
      return item ? hwidIndexSchema.parse(item) : undefined;
    },
  };
}
