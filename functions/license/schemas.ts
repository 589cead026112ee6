import * as z from 'zod';
import { appIdField, licenseKeyField as licenseKey, licenseKeysField as licenseKeys, subscriptionIdField } from '#core/fields';
import { maxPasswordBytes } from '#core/passwords';

/** Limits of api-decisions.md and the decisions recorded in the README's API reference. */
export const limits = {
  bulkKeys: 1000,
  perPage: 100,
  tags: 20,
  tagLength: 64,
  metadataBytes: 4096,
  maxDurationSeconds: 100 * 365 * 86400,
  maxExtendSeconds: 10 * 365 * 86400,
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

const customLicenseKey = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, 'must be 8 to 64 characters of A-Z, a-z, 0-9, _ and -');
const licenseStatus = z.enum(['active', 'paused']);
const tags = z.array(z.string().min(1).max(limits.tagLength)).max(limits.tags);
const metadata = z
  .record(z.string(), z.unknown())
  .refine((value) => bytes(JSON.stringify(value)) <= limits.metadataBytes, `must be at most ${limits.metadataBytes} bytes as JSON`);
const username = z.string().min(3, 'must be 3 to 50 characters').max(50, 'must be 3 to 50 characters');
const password = z
  .string()
  .min(8, 'must be at least 8 characters')
  .refine((value) => bytes(value) <= maxPasswordBytes, `must be at most ${maxPasswordBytes} bytes`);
const extendSeconds = z.number().int().min(1).max(limits.maxExtendSeconds);

const duration = {
  duration_unit: z.enum(Object.keys(durationUnitSeconds) as [keyof typeof durationUnitSeconds]),
  duration_value: z.number().int().min(1),
};

function durationWithinLimit(input: { duration_unit: keyof typeof durationUnitSeconds; duration_value: number }, context: z.RefinementCtx) {
  if (input.duration_value * durationUnitSeconds[input.duration_unit] > limits.maxDurationSeconds) {
    context.addIssue({ code: 'custom', path: ['duration_value'], message: 'must not make the duration longer than 100 years' });
  }
}

export const createSchema = z
  .object({
    app_id: appIdField,
    subscription_id: subscriptionIdField,
    ...duration,
    hwid_lock: z.boolean().default(false),
    tags: tags.default([]),
    metadata: metadata.default({}),
    username: username.optional(),
    password: password.optional(),
    license_key: customLicenseKey.optional(),
  })
  .superRefine(durationWithinLimit)
  .superRefine((input, context) => {
    if ((input.username === undefined) !== (input.password === undefined)) {
      const missing = input.username === undefined ? 'username' : 'password';
      context.addIssue({ code: 'custom', path: [missing], message: 'username and password come together' });
    }
  });

export const createBulkSchema = z
  .object({
    key_amount: z.number().int().min(1).max(limits.bulkKeys),
    app_id: appIdField,
    subscription_id: subscriptionIdField,
    ...duration,
    hwid_lock: z.boolean().default(false),
    tags: tags.default([]),
  })
  .superRefine(durationWithinLimit);

export const licenseKeySchema = z.object({ license_key: licenseKey });
export const licenseKeysSchema = z.object({ license_keys: licenseKeys });

export const extendSchema = z.object({ license_key: licenseKey, extend_seconds: extendSeconds });

export const extendBulkSchema = z.object({
  license_keys: licenseKeys,
  extend_seconds: extendSeconds,
  request_id: z.string().min(1).max(128).optional(),
});

export const getBulkSchema = z.object({
  app_id: appIdField,
  status: licenseStatus.optional(),
  subscription_id: subscriptionIdField.optional(),
  tag: z.string().min(1).max(limits.tagLength).optional(),
  per_page: z.number().int().min(1).max(limits.perPage).default(25),
  sort_field: z.literal('created_at').default('created_at'),
  sort_order: z.enum(['asc', 'desc']).default('desc'),
  cursor: z.string().max(512).nullish(),
});

export const updateStatusSchema = z.object({ license_key: licenseKey, status: licenseStatus });
export const updateStatusBulkSchema = z.object({ license_keys: licenseKeys, status: licenseStatus });
export const updateSubscriptionSchema = z.object({ license_key: licenseKey, subscription_id: subscriptionIdField });
export const updateCredentialsSchema = z.object({ license_key: licenseKey, username, password: password.optional() });
export const updateMetadataSchema = z.object({ license_key: licenseKey, metadata });
