import * as z from 'zod';
import { licenseKeyField, licenseKeysField } from '#core/fields';

/** Ten years: longer is a typo, and a longer cooldown means "never" (use hwid_reset_allowed for that). */
export const MAX_RESET_INTERVAL_SECONDS = 10 * 365 * 86400;

export const editHwidSchema = z.object({
  license_key: licenseKeyField,
  hwid: z.string().min(1).max(256).nullable(),
});
export type EditHwidInput = z.infer<typeof editHwidSchema>;

export const toggleLockSchema = z.object({
  license_key: licenseKeyField,
  hwid_lock: z.boolean().optional(),
});
export type ToggleLockInput = z.infer<typeof toggleLockSchema>;

export const toggleLockBulkSchema = z.object({
  license_keys: licenseKeysField,
  hwid_lock: z.boolean(),
});
export type ToggleLockBulkInput = z.infer<typeof toggleLockBulkSchema>;

export const toggleResetAllowedSchema = z.object({
  license_key: licenseKeyField,
  hwid_reset_allowed: z.boolean().optional(),
});
export type ToggleResetAllowedInput = z.infer<typeof toggleResetAllowedSchema>;

export const updateResetIntervalSchema = z.object({
  license_key: licenseKeyField,
  hwid_reset_interval: z.number().int().min(0).max(MAX_RESET_INTERVAL_SECONDS),
});
export type UpdateResetIntervalInput = z.infer<typeof updateResetIntervalSchema>;
