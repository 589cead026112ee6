import * as z from 'zod/mini';
import type { License } from './license';

/** The bounds of an application's trial settings (docs/management-api.md#trials). */
export const trialLimits = {
  minDurationSeconds: 3600,
  maxDurationSeconds: 90 * 86400,
  minPerIpPerDay: 1,
  maxPerIpPerDay: 1000,
  defaultPerIpPerDay: 5,
  defaultMaxDevices: 1,
} as const;

/** An application's trial as `/app/settings` stores it, defaults filled in; absent or null: no trials. */
export const trialSettingsSchema = z.lazy(() =>
  z.object({
    subscription_id: z.string(),
    duration_seconds: z.int(),
    max_devices: z.int(),
    features: z.optional(z.array(z.string())),
    per_ip_per_day: z.int(),
  }),
);
export type TrialSettings = z.infer<typeof trialSettingsSchema>;

/** The data step `npm start` and `admin migrate trial-secrets` run once for applications whose trials predate their secrets. */
export const trialSecretsMigration = 'trial-secrets';

/** The tag every trial license carries while it is one: a purchase drops it. */
export const trialTag = 'trial';

/** The tag a trial license gets when a purchase converts it, so owners tell a bought trial from any other license. */
export const convertedTag = 'trial-converted';

/**
 * One device's trial of one application, kept forever: deleting, converting or
 * expiring its license leaves it, so the device never gets a second trial. It
 * remembers the trial's end for the case its license is deleted.
 */
export const trialClaimSchema = z.lazy(() =>
  z.object({
    app_id: z.string(),
    hwid: z.string(),
    license_key: z.string(),
    created_at: z.string(),
    expires_at: z.string(),
  }),
);
export type TrialClaim = z.infer<typeof trialClaimSchema>;

/** The start times (epoch seconds) one source address's item holds: those of the last 24 hours when it was written. */
export const trialAddressSchema = z.lazy(() => z.object({ starts: z.array(z.int()) }));

/** What a start decides on, read strongly consistent: the device's claim, and the address's start times as stored (undefined: no item). */
export interface TrialStartState {
  claim: TrialClaim | undefined;
  starts: number[] | undefined;
}

/** What one `TRIAL_STARTED` writes in one transaction. */
export interface TrialStart {
  license: License;
  claim: TrialClaim;
  /** Under a `single_key_per_hwid` subscription: the device's HWID index item, claimed with the license. */
  claimDevice: boolean;
  /**
   * The source address's start times: `read` as the start read them (undefined:
   * no item), `starts` what replaces them (the last 24 hours' and this one),
   * written only while the item still holds `read`.
   */
  address: { hash: string; read: number[] | undefined; starts: number[]; expiresAt: number };
}

/**
 * `address_changed`: another start from the address wrote its item since it was read;
 * `conflict`: other transactions on the same items kept winning through every retry.
 * Both: read again and decide again.
 */
export type TrialStartOutcome = 'started' | 'claimed' | 'address_changed' | 'device_taken' | 'conflict';
