import * as z from 'zod/mini';
import { hwidField, hwidResetIntervalField, leaseSecondsField, licenseKeyField, licenseKeysField, maxDevicesField } from '#core/domain/fields';


export const editHwidSchema = z.lazy(() =>
  z.object({
    license_key: licenseKeyField,
    hwid: z.nullable(hwidField),
  }),
);

export const toggleLockSchema = z.lazy(() =>
  z.object({
    license_key: licenseKeyField,
    hwid_lock: z.optional(z.boolean()),
  }),
);

export const toggleLockBulkSchema = z.lazy(() =>
  z.object({
    license_keys: licenseKeysField,
    hwid_lock: z.boolean(),
  }),
);

export const toggleResetAllowedSchema = z.lazy(() =>
  z.object({
    license_key: licenseKeyField,
    hwid_reset_allowed: z.optional(z.boolean()),
  }),
);

export const updateResetIntervalSchema = z.lazy(() =>
  z.object({
    license_key: licenseKeyField,
    hwid_reset_interval: hwidResetIntervalField,
  }),
);

export const setMaxDevicesSchema = z.lazy(() =>
  z.object({
    license_key: licenseKeyField,
    max_devices: maxDevicesField,
  }),
);

export const removeHwidSchema = z.lazy(() =>
  z.object({
    license_key: licenseKeyField,
    hwid: hwidField,
  }),
);

export const setLeaseSchema = z.lazy(() =>
  z.object({
    license_key: licenseKeyField,
    lease_seconds: leaseSecondsField,
  }),
);
