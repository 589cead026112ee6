import * as z from 'zod/mini';
import { getItem, transactWrite, type Table } from './db';
import { cancelledByCondition, cancelledByConflict } from './retry';
import { keys } from './keys';
import type { License } from './license.repo';

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
  async function get(appId: string, hwid: string): Promise<HwidIndex | undefined> {
    const item = await getItem(table, keys.hwid(appId, hwid));
    return item ? hwidIndexSchema.parse(item) : undefined;
  }

  return {
    get,

    /**
     * Sets or clears a license's HWID in one transaction with the index items it
     * affects: the license only if its HWID is still the one read, the new HWID's
     * index item claimed when `claim` is set, and the old HWID's index item
     * released when it points at this license (an index item of another license
     * that shares the old HWID outside `single_key_per_hwid` is left alone).
     * `stale`: the license or an index item changed since it was read.
     */
    async changeLicenseHwid(change: HwidChange): Promise<HwidChangeOutcome> {
      const { license, hwid } = change;
      const old = license.hwid;
      const claim = change.claim && hwid !== null;
      const held = old !== null && old !== hwid ? await get(license.app_id, old) : undefined;
      const release = held?.license_key === license.key;
      const heldByThisLicense = { ':license_key': license.key };
      const sets = ['hwid = :hwid', ...(change.resetAt ? ['last_hwid_reset_at = :reset_at'] : [])];
      const items = [
        {
          Update: {
            TableName: table.name,
            Key: keys.licenseOf(license),
            UpdateExpression: `SET ${sets.join(', ')}`,
            ConditionExpression: `attribute_exists(pk) AND ${old === null ? 'attribute_type(hwid, :null)' : 'hwid = :old'}`,
            ExpressionAttributeValues: {
              ':hwid': hwid,
              ...(change.resetAt ? { ':reset_at': change.resetAt } : {}),
              ...(old === null ? { ':null': 'NULL' } : { ':old': old }),
            },
          },
        },
        ...(claim && hwid !== null
          ? [
              {
                Put: {
                  TableName: table.name,
                  Item: hwidIndexItem({ app_id: license.app_id, hwid, license_key: license.key }),
                  ConditionExpression: 'attribute_not_exists(pk) OR license_key = :license_key',
                  ExpressionAttributeValues: heldByThisLicense,
                },
              },
            ]
          : []),
        ...(release && old !== null
          ? [
              {
                Delete: {
                  TableName: table.name,
                  Key: keys.hwid(license.app_id, old),
                  ConditionExpression: 'attribute_not_exists(pk) OR license_key = :license_key',
                  ExpressionAttributeValues: heldByThisLicense,
                },
              },
            ]
          : []),
      ];
      try {
        await transactWrite(table, items);
        return 'changed';
      } catch (error) {
        const reasons = cancelledByCondition(error);
        if (reasons) return reasons[0] !== 'ConditionalCheckFailed' && claim && reasons[1] === 'ConditionalCheckFailed' ? 'hwid-in-use' : 'stale';
        if (cancelledByConflict(error)) return 'stale';
        throw error;
      }
    },
  };
}

export interface HwidChange {
  /** The license as read before the change. */
  license: License;
  /** The new HWID, or null to clear it. */
  hwid: string | null;
  /** Written as `last_hwid_reset_at` when set. */
  resetAt?: string;
  /** Claim the new HWID's index item: the license's subscription has `single_key_per_hwid`. */
  claim: boolean;
}

export type HwidChangeOutcome = 'changed' | 'hwid-in-use' | 'stale';
