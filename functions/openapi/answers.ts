import * as z from 'zod/mini';
import { blacklistTypes } from '#data/model/blacklist';
import { eventTypes } from '../events/derive';
import { usagePeriods } from '#shared/usage-periods';
import { roles } from '#shared/roles';

/**
 * The answers' shapes, for the OpenAPI document only (no handler imports this
 * file, so no Lambda bundles it). The actions build their answers as plain
 * objects; the contract test (test/integration/openapi-contract.test.ts) sends
 * real requests to every route and holds each answer to these schemas, with
 * unknown fields refused, so a field added to an answer and not here fails it.
 */

const timestamp = z.string().check(z.iso.datetime({ offset: true }));
const nullableTimestamp = z.nullable(timestamp);
const uuid = z.string().check(z.uuid());

const seats = {
  /** Present only on a license with more than one seat (docs/management-api.md, "Devices: seats and self-service reset"). */
  hwids: z.optional(z.array(z.string())),
  max_devices: z.optional(z.int()),
};

/** A live lease of a floating license (docs/licensing-models.md, "Floating seats"). */
const lease = z.strictObject({ hwid: z.string(), expires_at: timestamp, borrowed: z.boolean() });

/** Present once `lease_seconds` was set on the license (docs/management-api.md, "Floating seats"). */
const leasing = {
  lease_seconds: z.optional(z.int()),
  /** False while `hwid_lock` is off: leasing then has no effect. */
  floating: z.optional(z.boolean()),
  leases: z.optional(z.array(lease)),
};

/** A live license file (docs/client-api.md, "POST /license-file"): each device's latest, until its end or return. */
const licenseFile = z.strictObject({ jti: z.string(), hwid: z.string(), issued_at: timestamp, expires_at: timestamp, air_gapped: z.boolean() });

/** A usage counter as /usage and the license record show it (docs/client-api.md, POST /usage). */
export const usageCounter = z.strictObject({
  counter: z.string(),
  used: z.int(),
  limit: z.int(),
  overage: z.int(),
  remaining: z.int(),
  period: z.enum(usagePeriods),
  resets_at: nullableTimestamp,
});

const usageLimits = z.record(z.string(), z.strictObject({ limit: z.int(), period: z.enum(usagePeriods), overage: z.int() }));

export const licenseRecord = z.strictObject({
  key: z.string(),
  app_id: uuid,
  subscription_id: uuid,
  subscription_name: z.nullable(z.string()),
  subscription_level: z.nullable(z.int()),
  status: z.enum(['active', 'paused']),
  created_at: timestamp,
  expires_at: nullableTimestamp,
  initial_duration: z.int(),
  first_used_at: nullableTimestamp,
  last_login: nullableTimestamp,
  hwid: z.nullable(z.string()),
  hwid_lock: z.boolean(),
  hwid_reset_allowed: z.boolean(),
  hwid_reset_interval: z.int(),
  last_hwid_reset_at: nullableTimestamp,
  username: z.nullable(z.string()),
  /** The customer's email address, lower-cased; absent while the license has none. */
  email: z.optional(z.string()),
  tags: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  ...seats,
  ...leasing,
  /** Present once the license has had a license file: its live ones, oldest first. */
  files: z.optional(z.array(licenseFile)),
  /** The license's own features and usage limits, what applies with its subscription's, and its usage (docs/licensing-models.md). */
  features: z.array(z.string()),
  effective_features: z.array(z.string()),
  usage_limits: usageLimits,
  usage: z.array(usageCounter),
});

/** /license/find: each license the query found, with the ways it matched. */
export const foundLicenses = z.strictObject({
  matches: z.array(z.strictObject({ matched: z.array(z.enum(['key', 'username', 'hwid', 'email'])), license: licenseRecord })),
});

export const bulkResult = z.strictObject({
  succeeded: z.array(z.string()),
  failed: z.array(z.strictObject({ license_key: z.string(), error_code: z.string() })),
});

export const deletedLicense = z.strictObject({ key: z.string(), deleted: z.literal(true) });

export const subscriptionRecord = z.strictObject({
  subscription_id: uuid,
  app_id: uuid,
  name: z.string(),
  level: z.int(),
  single_key_per_hwid: z.boolean(),
  status: z.enum(['active', 'inactive']),
  created_at: timestamp,
  features: z.array(z.string()),
  usage_limits: usageLimits,
  grace_seconds: z.int(),
});

export const deletedSubscription = z.strictObject({ subscription_id: uuid, deleted: z.literal(true) });

export const blacklistEntry = z.strictObject({
  app_id: uuid,
  type: z.enum(blacklistTypes),
  value: z.string(),
  reason: z.nullable(z.string()),
  created_at: timestamp,
});

export const deletedBlacklistEntry = z.strictObject({ type: z.enum(blacklistTypes), value: z.string(), deleted: z.literal(true) });

/** An API key as /apikey/list shows it: never the key nor its hash. */
export const apiKeySummary = z.strictObject({
  key_id: uuid,
  name: z.nullable(z.string()),
  hint: z.nullable(z.string()),
  role: z.enum(roles),
  apps: z.nullable(z.array(uuid)),
  status: z.enum(['active', 'revoked']),
  created_at: timestamp,
  revoked_at: z.nullable(timestamp),
});

export const createdApiKey = z.strictObject({ ...apiKeySummary.shape, api_key: z.string() });

export const currentApiKey = z.strictObject({ role: z.enum(roles), apps: z.nullable(z.array(uuid)) });

export const appSummary = z.strictObject({ app_id: uuid, name: z.string(), status: z.enum(['active', 'inactive']), created_at: timestamp });

export const appSettings = z.strictObject({
  app_id: uuid,
  offline_token_ttl: z.int(),
  default_hwid_reset_allowed: z.boolean(),
  default_hwid_reset_interval: z.int(),
  max_borrow_seconds: z.int(),
  max_license_file_seconds: z.int(),
  /** null: no trials (docs/management-api.md#trials). */
  trial: z.nullable(
    z.strictObject({
      subscription_id: uuid,
      duration_seconds: z.int(),
      max_devices: z.int(),
      features: z.optional(z.array(z.string())),
      per_ip_per_day: z.int(),
    }),
  ),
  /** The customer portal (docs/portal.md#switching-it-on), defaults filled in. */
  portal: z.strictObject({
    enabled: z.boolean(),
    sender_name: z.optional(z.string()),
    support_url: z.optional(z.string()),
    allow_device_release: z.boolean(),
    allow_license_files: z.boolean(),
  }),
});

export const signingKey = z.strictObject({
  key_id: z.string(),
  algorithm: z.literal('ed25519'),
  public_key: z.string(),
  public_key_pem: z.string(),
  jwk: z.strictObject({
    kty: z.literal('OKP'),
    crv: z.literal('Ed25519'),
    x: z.string(),
    kid: z.string(),
    alg: z.literal('EdDSA'),
    use: z.literal('sig'),
  }),
  created_at: timestamp,
});

export const createdApp = z.strictObject({ ...appSummary.shape, signing_key: signingKey });

/** A price's mapping as `/integration/stripe/set` stores it (functions/integration/schemas.ts). */
export const stripePriceMapping = z.strictObject({
  subscription_id: uuid,
  duration_unit: z.enum(['seconds', 'minutes', 'hours', 'days', 'weeks', 'months', 'years']),
  duration_value: z.int(),
  max_devices: z.optional(z.int()),
  features: z.optional(z.array(z.string())),
  hwid_lock: z.optional(z.boolean()),
});

/** An application's Stripe connection: the signing secret as a hint only, never the restricted key. */
export const stripeConnection = z.strictObject({
  app_id: uuid,
  webhook_secret: z.string(),
  prices: z.record(z.string(), stripePriceMapping),
  webhook_path: z.string(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const stripeDisconnected = z.strictObject({ app_id: uuid, deleted: z.literal(true) });

export const appStats = z.strictObject({
  totals: z.strictObject({ licenses: z.int(), active: z.int(), paused: z.int(), expired: z.int(), unused: z.int() }),
  days: z.array(
    z.strictObject({
      date: z.string().check(z.iso.date()),
      created: z.int(),
      activated: z.int(),
      logins: z.int(),
      auth_failures: z.int(),
    }),
  ),
});

export const auditEvent = z.strictObject({
  id: z.string(),
  type: z.enum(eventTypes),
  app_id: uuid,
  subject: z.string(),
  at: timestamp,
  actor: z.string(),
  before: z.optional(z.record(z.string(), z.unknown())),
  after: z.optional(z.record(z.string(), z.unknown())),
});

/** The 13 fields of a successful /auth (docs/client-api.md, "POST /auth"): `initial_duration` is a string there, unlike in the management record. */
export const authData = z.strictObject({
  key: z.string(),
  created_at: timestamp,
  expires_at: nullableTimestamp,
  initial_duration: z.string(),
  first_used_at: nullableTimestamp,
  hwid_lock: z.boolean(),
  last_hwid_reset_at: nullableTimestamp,
  hwid_reset_cooldown: z.int(),
  hwid_reset_allowed: z.boolean(),
  username: z.nullable(z.string()),
  last_login: nullableTimestamp,
  subscription_level: z.int(),
  subscription_name: z.string(),
  ...seats,
  /** A floating license's: the end of this device's lease, null when it holds none (after /release). */
  lease_expires_at: z.optional(nullableTimestamp),
  /** The features of the license and its subscription, only when there are any (docs/licensing-models.md, "Entitlements"). */
  features: z.optional(z.array(z.string())),
  /** Only while the license is past its expiry within its subscription's grace (docs/licensing-models.md, "Grace periods"). */
  grace_until: z.optional(timestamp),
  /** Only when the request asked for one with `"offline_token": true`, on a floating license only with `borrow_seconds` (docs/client-api.md, "Signed answers and offline tokens"). */
  offline_token: z.optional(z.string()),
});

/** `/license-file`: the license data of a successful check, and the file (docs/client-api.md, "POST /license-file"). */
export const licenseFileData = z.strictObject({ ...authData.shape, license_file: z.string() });
/** A trial's answer (docs/client-api.md#post-trial): the license's data as /auth gives it, and `license`, its key. */
export const trialData = z.strictObject({ ...authData.shape, license: z.string() });

export const hwidMismatchData = z.strictObject({
  hwid_reset_allowed: z.boolean(),
  last_hwid_reset_at: nullableTimestamp,
  hwid_reset_cooldown: z.int(),
});

export const licenseExpiredData = z.strictObject({ expires_at: timestamp });

/** `SEATS_EXHAUSTED`: every seat of a floating license is leased; `next_seat_at` is the earliest live lease's end. */
export const seatsExhaustedData = z.strictObject({ max_devices: z.int(), next_seat_at: nullableTimestamp });

/** `LEASE_BORROWED`: a borrowed seat stays taken until its end. */
export const leaseBorrowedData = z.strictObject({ lease_expires_at: timestamp });

export const hwidResetCooldownData = z.strictObject({
  last_hwid_reset_at: timestamp,
  hwid_reset_cooldown: z.int(),
  next_reset_at: timestamp,
});

/** A webhook endpoint (docs/webhooks.md#endpoints): never its secret, except in the answers that make one. */
export const webhook = z.strictObject({
  webhook_id: uuid,
  url: z.string(),
  events: z.array(z.string()),
  description: z.string(),
  enabled: z.boolean(),
  created_at: timestamp,
});

export const webhookWithSecret = z.strictObject({ ...webhook.shape, secret: z.string().check(z.regex(/^whsec_[A-Za-z0-9+/]{43}=$/)) });

/** One event's delivery to one endpoint (docs/webhooks.md#the-delivery-log). */
export const webhookDelivery = z.strictObject({
  delivery_id: z.string(),
  event_id: z.string(),
  type: z.enum(eventTypes),
  state: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.int(),
  last_status: z.nullable(z.int()),
  last_error: z.nullable(z.string()),
  next_attempt_at: nullableTimestamp,
  created_at: timestamp,
});

/** `POST /portal/app`: the portal's branding (docs/portal.md). */
export const portalBranding = z.strictObject({
  name: z.string(),
  sender_name: z.optional(z.string()),
  support_url: z.optional(z.string()),
  allow_device_release: z.boolean(),
  allow_license_files: z.boolean(),
});

/** `POST /portal/verify`: a session's token, and when it ends. */
export const portalToken = z.strictObject({ token: z.string(), expires_at: timestamp });

/** One license as its customer sees it in the portal (docs/portal.md#what-customers-see). */
export const customerLicense = z.strictObject({
  key: z.string(),
  status: z.enum(['active', 'paused']),
  expires_at: z.nullable(timestamp),
  subscription_name: z.nullable(z.string()),
  features: z.array(z.string()),
  usage: z.array(usageCounter),
  max_devices: z.int(),
  devices: z.array(
    z.strictObject({
      hwid: z.string(),
      lease: z.nullable(z.strictObject({ expires_at: timestamp, borrowed: z.boolean() })),
      files: z.array(z.strictObject({ issued_at: timestamp, expires_at: timestamp, air_gapped: z.boolean() })),
    }),
  ),
  release: z.strictObject({ allowed_now: z.boolean(), next_at: z.nullable(timestamp) }),
  billing: z.boolean(),
});

/** `POST /portal/billing`: where Stripe's customer portal for the license's buyer opens. */
export const portalBilling = z.strictObject({ url: z.string() });
