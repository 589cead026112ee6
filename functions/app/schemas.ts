import * as z from 'zod/mini';
import { roles } from '#shared/roles';
import { apiKeyIdField, appIdField, hwidResetIntervalField, licenseKeyField, maxDevicesField, nameField, subscriptionIdField } from '#core/domain/fields';
import { featuresField } from '#shared/entitlements';
import { trialLimits } from '#data/model/trial';
import { portalLimits } from '#data/model/portal';
import { offlineTokenTtl } from '../client/offline-token';
import { eventTypes } from '../events/derive';
import { borrowSecondsLimits } from '#data/model/lease';
import { licenseFileSecondsLimits } from '#data/model/license-file';

/** Strict: a field sent here was meant for another route, and silently ignoring it would hide the mistake. */
export const listAppsSchema = z.lazy(() => z.strictObject({}));

export const appIdSchema = z.lazy(() => z.object({ app_id: appIdField }));

/** `request_id` as `/license/extend-bulk` takes it: the same one sent again answers the application it made. */
export const createAppSchema = z.lazy(() =>
  z.object({
    name: nameField,
    request_id: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
  }),
);

export const updateAppSchema = z.lazy(() =>
  z
    .object({
      app_id: appIdField,
      name: z.optional(nameField),
      status: z.optional(z.enum(['active', 'inactive'])),
    })
    .check(z.refine((body) => body.name !== undefined || body.status !== undefined, 'at least one of name, status is required')),
);

/** An application's trials (docs/management-api.md#trials): null turns them off. */
const trialField = z.lazy(() =>
  z.strictObject({
    subscription_id: subscriptionIdField,
    duration_seconds: z.int().check(z.gte(trialLimits.minDurationSeconds), z.lte(trialLimits.maxDurationSeconds)),
    max_devices: z._default(maxDevicesField, trialLimits.defaultMaxDevices),
    features: z.optional(featuresField),
    per_ip_per_day: z._default(z.int().check(z.gte(trialLimits.minPerIpPerDay), z.lte(trialLimits.maxPerIpPerDay)), trialLimits.defaultPerIpPerDay),
  }),
);

/** The customer portal (docs/portal.md#switching-it-on): sent whole, defaults filled in. */
const portalField = z.lazy(() =>
  z.strictObject({
    enabled: z._default(z.boolean(), false),
    // What a customer reads as the portal's sender and support link: printable text, an https address.
    sender_name: z.optional(
      z.string().check(z.trim(), z.minLength(1), z.maxLength(portalLimits.maxSenderName), z.refine((name) => !/[\p{Cc}\p{Cf}]/u.test(name), 'must hold no control characters')),
    ),
    support_url: z.optional(
      z.string().check(z.maxLength(portalLimits.maxSupportUrl), z.refine((url) => URL.canParse(url) && new URL(url).protocol === 'https:', 'must be an https URL')),
    ),
    allow_device_release: z._default(z.boolean(), true),
    allow_license_files: z._default(z.boolean(), true),
  }),
);

export const settingsSchema = z.lazy(() =>
  z.object({
    app_id: appIdField,
    offline_token_ttl: z.optional(z.int().check(z.gte(offlineTokenTtl.minSeconds), z.lte(offlineTokenTtl.maxSeconds))),
    default_hwid_reset_allowed: z.optional(z.boolean()),
    default_hwid_reset_interval: z.optional(hwidResetIntervalField),
    max_borrow_seconds: z.optional(z.int().check(z.gte(borrowSecondsLimits.min), z.lte(borrowSecondsLimits.max))),
    max_license_file_seconds: z.optional(z.int().check(z.gte(licenseFileSecondsLimits.min), z.lte(licenseFileSecondsLimits.max))),
    trial: z.optional(z.nullable(trialField)),
    portal: z.optional(portalField),
  }),
);

export const statsSchema = z.lazy(() =>
  z.object({
    app_id: appIdField,
    days: z._default(z.int().check(z.minimum(1), z.maximum(90)), 30),
  }),
);

/** An instant, read as its ISO 8601 UTC form: the audit log's sort keys begin with it, so ranges compare as strings. */
const instantField = z.lazy(() =>
  z.pipe(
    z.string().check(z.maxLength(40), z.refine((value) => /^\d{4}-\d\d-\d\dT/.test(value) && !Number.isNaN(Date.parse(value)), 'must be an ISO 8601 date and time')),
    z.transform((value) => new Date(value).toISOString()),
  ),
);

/** Who made a change, as events name it (docs/events.md): `api_key:<8 hex>`, `client`, `admin`, `service`, `stripe`. */
const actorField = z.lazy(() => z.string().check(z.regex(/^(api_key:[0-9a-f]{8}|[a-z_]{1,32})$/, 'must be an actor as events name it: api_key:<8 hex characters>, client, admin, service or stripe')));

export const auditListSchema = z.lazy(() =>
  z.object({
    app_id: appIdField,
    license_key: z.optional(licenseKeyField),
    type: z.optional(z.enum(eventTypes)),
    actor: z.optional(actorField),
    /** From this instant on (inclusive). */
    from: z.optional(instantField),
    /** Before this instant (exclusive). */
    to: z.optional(instantField),
    per_page: z._default(z.int().check(z.minimum(1), z.maximum(100)), 25),
    cursor: z.nullish(z.string().check(z.maxLength(512))),
  }).check(z.refine((body) => body.from === undefined || body.to === undefined || body.from < body.to, { message: 'must be later than from', path: ['to'] })),
);

/** At most this many applications per key: the authorizer hands them on in one context value. */
export const maxKeyApps = 50;

export const createApiKeySchema = z.lazy(() =>
  z.strictObject({
    role: z.enum(roles),
    apps: z.optional(z.array(appIdField).check(z.minLength(1), z.maxLength(maxKeyApps))),
    name: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(64))),
  }),
);

export const apiKeyIdSchema = z.lazy(() => z.strictObject({ key_id: apiKeyIdField }));
