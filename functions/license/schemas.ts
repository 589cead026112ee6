import * as z from 'zod/mini';
import {
  appIdField,
  emailField,
  hwidResetIntervalField,
  leaseSecondsField,
  maxDevicesField,
  licenseKeyField as licenseKey,
  licenseKeysField as licenseKeys,
  subscriptionIdField,
} from '#core/domain/fields';
import { maxPasswordBytes } from '#core/domain/passwords';
import { entitlementName, featuresField, usageLimitsField } from '#shared/entitlements';
import { metadataProblem } from './metadata';

/** The limits docs/management-api.md states for license bodies. */
export const limits = {
  bulkKeys: 1000,
  perPage: 100,
  tags: 20,
  tagLength: 64,
  maxDurationSeconds: 100 * 365 * 86400,
  maxExtendSeconds: 10 * 365 * 86400,
  expiringWithinDays: 3650,
} as const;

export const durationUnitSeconds = {
  seconds: 1,
  minutes: 60,
  hours: 3600,
  days: 86400,
  weeks: 7 * 86400,
  months: 30 * 86400,
  years: 365 * 86400,
} as const;

const bytes = (value: string) => Buffer.byteLength(value, 'utf8');

const customLicenseKey = z.lazy(() => z.string().check(z.regex(/^[A-Za-z0-9_-]{8,64}$/, 'must be 8 to 64 characters of A-Z, a-z, 0-9, _ and -')));
const licenseStatus = z.lazy(() => z.enum(['active', 'paused']));
const tags = z.lazy(() => z.array(z.string().check(z.minLength(1), z.maxLength(limits.tagLength))).check(z.maxLength(limits.tags)));
// Checked on the body as parsed, before a record schema could drop a `__proto__` key unseen.
const metadata = z.lazy(() =>
  z.pipe(
    z.unknown().check(
      z.superRefine((value, context) => {
        const problem = metadataProblem(value);
        if (problem) context.addIssue({ code: 'custom', message: problem, input: value });
      }),
    ),
    z.transform((value) => value as Record<string, unknown>),
  ),
);
const username = z.lazy(() => z.string().check(z.trim(), z.normalize('NFC'), z.minLength(3, 'must be 3 to 50 characters'), z.maxLength(50, 'must be 3 to 50 characters')));
const password = z.lazy(() =>
  z
    .string()
    .check(
      z.minLength(8, 'must be at least 8 characters'),
      z.refine((value) => bytes(value) <= maxPasswordBytes, `must be at most ${maxPasswordBytes} bytes`),
    ),
);
const extendSeconds = z.lazy(() => z.int().check(z.minimum(1), z.maximum(limits.maxExtendSeconds)));

export const duration = {
  duration_unit: z.enum(Object.keys(durationUnitSeconds) as [keyof typeof durationUnitSeconds]),
  duration_value: z.int().check(z.minimum(1)),
};

type Duration = { duration_unit: keyof typeof durationUnitSeconds; duration_value: number };

export const durationWithinLimit = z.refine<Duration>(
  (input) =>
    input.duration_value * durationUnitSeconds[input.duration_unit] <= limits.maxDurationSeconds,
  { path: ['duration_value'], message: 'must not make the duration longer than 100 years' },
);

/** What a license created alone or in bulk may set of its devices and entitlements; a function, so it is built with the schema using it. */
const deviceAndEntitlementFields = () => ({
  max_devices: z._default(maxDevicesField, 1),
  lease_seconds: z._default(leaseSecondsField, null),
  hwid_reset_allowed: z.optional(z.boolean()),
  hwid_reset_interval: z.optional(hwidResetIntervalField),
  features: z.optional(featuresField),
  usage_limits: z.optional(usageLimitsField),
});

export const createSchema = z.lazy(() =>
  z
    .object({
      app_id: appIdField,
      subscription_id: subscriptionIdField,
      ...duration,
      hwid_lock: z._default(z.boolean(), false),
      tags: z._default(tags, []),
      metadata: z._default(metadata, {}),
      username: z.optional(username),
      password: z.optional(password),
      license_key: z.optional(customLicenseKey),
      email: z.optional(emailField),
      ...deviceAndEntitlementFields(),
    })
    .check(
      durationWithinLimit,
      z.superRefine((input, context) => {
        if ((input.username === undefined) !== (input.password === undefined)) {
          const missing = input.username === undefined ? 'username' : 'password';
          context.addIssue({ code: 'custom', path: [missing], message: 'username and password come together' });
        }
      }),
    ),
);

/** An owner's id of a bulk request: the same request sent again under it does its work once (docs/management-api.md). */
const requestIdField = z.lazy(() => z.string().check(z.minLength(1), z.maxLength(128)));

export const createBulkSchema = z.lazy(() =>
  z
    .object({
      key_amount: z.int().check(z.minimum(1), z.maximum(limits.bulkKeys)),
      request_id: z.optional(requestIdField),
      app_id: appIdField,
      subscription_id: subscriptionIdField,
      ...duration,
      hwid_lock: z._default(z.boolean(), false),
      tags: z._default(tags, []),
      email: z.optional(emailField),
      ...deviceAndEntitlementFields(),
    })
    .check(durationWithinLimit),
);

export const licenseKeySchema = z.lazy(() => z.object({ license_key: licenseKey }));
export const licenseKeysSchema = z.lazy(() => z.object({ license_keys: licenseKeys }));

export const extendSchema = z.lazy(() => z.object({ license_key: licenseKey, extend_seconds: extendSeconds }));

export const extendBulkSchema = z.lazy(() =>
  z.object({
    license_keys: licenseKeys,
    extend_seconds: extendSeconds,
    request_id: z.optional(requestIdField),
  }),
);

export const getBulkSchema = z.lazy(() =>
  z.object({
    app_id: appIdField,
    status: z.optional(licenseStatus),
    subscription_id: z.optional(subscriptionIdField),
    tag: z.optional(z.string().check(z.minLength(1), z.maxLength(limits.tagLength))),
    /** true: only licenses whose expiry has passed; false: only those not expired (unused ones included). */
    expired: z.optional(z.boolean()),
    /** true: only licenses never used (no first /auth); false: only used ones. */
    unused: z.optional(z.boolean()),
    /** Only licenses not yet expired that expire within this many days. */
    expiring_within_days: z.optional(z.int().check(z.minimum(1), z.maximum(limits.expiringWithinDays))),
    per_page: z._default(z.int().check(z.minimum(1), z.maximum(limits.perPage)), 25),
    /** `expires_at` lists only licenses that have an expiry (used ones): an unused license's clock has not started. */
    sort_field: z._default(z.enum(['created_at', 'expires_at']), 'created_at'),
    sort_order: z._default(z.enum(['asc', 'desc']), 'desc'),
    cursor: z.nullish(z.string().check(z.maxLength(512))),
  }),
);

/** A license key, a username or a bound HWID: as long as the longest of them (a key or an HWID, 256 characters). */
export const findSchema = z.lazy(() =>
  z.object({
    app_id: appIdField,
    query: z.string().check(z.minLength(1, 'must be 1 to 256 characters'), z.maxLength(256, 'must be 1 to 256 characters')),
  }),
);

export const updateStatusSchema = z.lazy(() => z.object({ license_key: licenseKey, status: licenseStatus }));
export const updateStatusBulkSchema = z.lazy(() => z.object({ license_keys: licenseKeys, status: licenseStatus }));
export const updateSubscriptionSchema = z.lazy(() => z.object({ license_key: licenseKey, subscription_id: subscriptionIdField }));
export const updateCredentialsSchema = z.lazy(() => z.object({ license_key: licenseKey, username, password: z.optional(password) }));
/** null removes the license's email. */
export const updateEmailSchema = z.lazy(() => z.object({ license_key: licenseKey, email: z.nullable(emailField) }));
export const updateMetadataSchema = z.lazy(() => z.object({ license_key: licenseKey, metadata }));
export const updateFeaturesSchema = z.lazy(() => z.object({ license_key: licenseKey, features: featuresField }));
export const updateUsageLimitsSchema = z.lazy(() => z.object({ license_key: licenseKey, usage_limits: usageLimitsField }));
export const resetUsageSchema = z.lazy(() => z.object({ license_key: licenseKey, counter: z.optional(entitlementName) }));
