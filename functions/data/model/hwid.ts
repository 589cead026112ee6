import * as z from 'zod/mini';
import type { License } from './license';

/**
 * HWID index: one item per device bound under a `single_key_per_hwid`
 * subscription. Creating it under `attribute_not_exists` in the same transaction
 * as the license update is what makes one-device-one-license atomic.
 */
export const hwidIndexSchema = z.lazy(() =>
  z.object({
    app_id: z.string(),
    hwid: z.string(),
    license_key: z.string(),
  }),
);
export type HwidIndex = z.infer<typeof hwidIndexSchema>;

export interface HwidChange {
  /** The license as read before the change. */
  license: License;
  /** The bound HWIDs afterwards, oldest first; empty to clear them all. */
  hwids: readonly string[];
  /** Written as `last_hwid_reset_at` when set. */
  resetAt?: string;
  /** Claim the new HWIDs' index items: the license's (new) subscription has `single_key_per_hwid`. */
  claim: boolean;
  /** Claim the kept HWIDs too (a move onto a `single_key_per_hwid` subscription). */
  claimKept?: boolean;
  /** Release the kept HWIDs' index items too (a move off a `single_key_per_hwid` subscription). */
  releaseKept?: boolean;
  /** Moves the license to this subscription in the same transaction. */
  subscriptionId?: string;
  /** The time of the change: a floating license's new devices are leased from it, and claims on ended leases judged by it. */
  now?: string;
  /** A returned license file's `jti`: its entry goes with the change, which holds only while the license still lists it. */
  returnedFile?: string;
  /** Fields of the license a decision relied on, with the values they must still hold. */
  expect?: Partial<Pick<License, 'team_id' | 'app_id' | 'status' | 'hwid_reset_allowed' | 'hwid_reset_interval' | 'last_hwid_reset_at'>>;
}

export type HwidChangeOutcome = 'changed' | 'hwid-in-use' | 'stale';
