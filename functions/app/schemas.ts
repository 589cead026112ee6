import * as z from 'zod/mini';
import { roles } from '../access';
import { appIdField, hwidResetIntervalField, licenseKeyField, apiKeyIdField } from '#core/domain/fields';
import { offlineTokenTtl } from '../client/offline-token';
import { eventTypes } from '../events/derive';
import { borrowSecondsLimits } from '#data/leases';

/** Strict: a field sent here was meant for another route, and silently ignoring it would hide the mistake. */
export const listAppsSchema = z.strictObject({});

export const appIdSchema = z.object({ app_id: appIdField });

export const settingsSchema = z.object({
  app_id: appIdField,
  offline_token_ttl: z.optional(z.int().check(z.gte(offlineTokenTtl.minSeconds), z.lte(offlineTokenTtl.maxSeconds))),
  default_hwid_reset_allowed: z.optional(z.boolean()),
  default_hwid_reset_interval: z.optional(hwidResetIntervalField),
  max_borrow_seconds: z.optional(z.int().check(z.gte(borrowSecondsLimits.min), z.lte(borrowSecondsLimits.max))),
});

export const statsSchema = z.object({
  app_id: appIdField,
  days: z._default(z.int().check(z.minimum(1), z.maximum(90)), 30),
});

export const auditListSchema = z.object({
  app_id: appIdField,
  license_key: z.optional(licenseKeyField),
  type: z.optional(z.enum(eventTypes)),
  per_page: z._default(z.int().check(z.minimum(1), z.maximum(100)), 25),
  cursor: z.nullish(z.string().check(z.maxLength(512))),
});

/** At most this many applications per key: the authorizer hands them on in one context value. */
export const maxKeyApps = 50;

export const createApiKeySchema = z.strictObject({
  role: z.enum(roles),
  apps: z.optional(z.array(appIdField).check(z.minLength(1), z.maxLength(maxKeyApps))),
  name: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(64))),
});

export const apiKeyIdSchema = z.strictObject({ key_id: apiKeyIdField });
