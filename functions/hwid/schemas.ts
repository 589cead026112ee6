import * as z from 'zod/mini';
import { hwidResetIntervalField, leaseSecondsField, licenseKeyField, licenseKeysField, maxDevicesField } from '#core/fields';

export const editHwidSchema = z.object({
  license_key: licenseKeyField,
  hwid: z.nullable(z.string().check(z.minLength(1), z.maxLength(256))),
});
export type EditHwidInput = z.infer<typeof editHwidSchema>;

export const toggleLockSchema = z.object({
  license_key: licenseKeyField,
  hwid_lock: z.optional(z.boolean()),
});
export type ToggleLockInput = z.infer<typeof toggleLockSchema>;

export const toggleLockBulkSchema = z.object({
  license_keys: licenseKeysField,
  hwid_lock: z.boolean(),
});
export type ToggleLockBulkInput = z.infer<typeof toggleLockBulkSchema>;

export const toggleResetAllowedSchema = z.object({
  license_key: licenseKeyField,
  hwid_reset_allowed: z.optional(z.boolean()),
});
export type ToggleResetAllowedInput = z.infer<typeof toggleResetAllowedSchema>;

export const updateResetIntervalSchema = z.object({
  license_key: licenseKeyField,
  hwid_reset_interval: hwidResetIntervalField,
});
export type UpdateResetIntervalInput = z.infer<typeof updateResetIntervalSchema>;

const hwidField = z.string().check(z.minLength(1), z.maxLength(256));

export const setMaxDevicesSchema = z.object({
  license_key: licenseKeyField,
  max_devices: maxDevicesField,
});
export type SetMaxDevicesInput = z.infer<typeof setMaxDevicesSchema>;

export const removeHwidSchema = z.object({
  license_key: licenseKeyField,
  hwid: hwidField,
});
export type RemoveHwidInput = z.infer<typeof removeHwidSchema>;

export const setLeaseSchema = z.object({
  license_key: licenseKeyField,
  lease_seconds: leaseSecondsField,
});
export type SetLeaseInput = z.infer<typeof setLeaseSchema>;
