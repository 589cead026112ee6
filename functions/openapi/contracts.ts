import * as z from 'zod/mini';
import * as appSchemas from '../app/schemas';
import * as blacklistSchemas from '../blacklist/schemas';
import { clientMessages, type ClientFailureCode, type ManagementErrorCode } from '#core/http/errors';
import * as hwidSchemas from '../hwid/schemas';
import * as integrationSchemas from '../integration/schemas';
import * as licenseSchemas from '../license/schemas';
import * as portalSchemas from '../portal/schemas';
import { registeredMessage } from '../client/register';
import { maxUsageAmount } from '../client/schemas';
import { licenseFileReturnedMessage } from '../client/reset-hwid';
import { maxCodeLength } from '#core/http/file-codes';
import { licenseFileSecondsLimits } from '#data/model/license-file';
import { noncePattern } from '#core/signing/signatures';
import { borrowSecondsLimits } from '#data/model/lease';
import { entitlementName } from '#shared/entitlements';
import type { RoutePath } from '../routes';
import * as subscriptionSchemas from '../subscription/schemas';
import * as webhookSchemas from '../webhook/schemas';
import * as answers from './answers';

/**
 * What the OpenAPI document says about each route beyond its path: the body
 * schema the handler validates with (imported from the group's own schemas),
 * the answer's shape, and the route's own errors. Keyed by RoutePath, so a route
 * added to the table without a contract does not compile.
 */
export interface ManagementContract {
  summary: string;
  description?: string;
  tag: string;
  request: z.ZodMiniType;
  requestExample: Record<string, unknown>;
  /** `data` of the success body. */
  answer: z.ZodMiniType;
  answerExample: unknown;
  /** `{success, data, next_cursor}` instead of `{success, data}`. */
  list?: boolean;
  /** This route's own errors; every management route also has those of `commonManagementErrors` (a portal route those of `commonPortalErrors`). */
  errors: ManagementErrorCode[];
  /** A portal route that answers `{success: true}` and no `data`, with this status (`answer` is then unused). */
  bare?: 200 | 202;
  /** A portal route that takes a customer's session (`Authorization: Bearer lps_…`). */
  session?: true;
  /** A portal route that runs a client route's rules: its 403 codes, in the management shape. */
  clientFailures?: readonly ClientFailureCode[];
}

export interface ClientContract {
  summary: string;
  description: string;
  tag: 'Client';
  /** The accepted body as clients should send it (the handler reads it leniently, field by field). */
  request: z.ZodMiniType;
  requestExample: Record<string, unknown>;
  successMessages: readonly string[];
  answer?: z.ZodMiniType;
  answerExample: Record<string, unknown>;
  /** 400 messages, in the order the checks run. */
  badRequest: readonly string[];
  /** 403 codes, in the order the checks run. */
  failures: readonly ClientFailureCode[];
}

export type Contract = ManagementContract | ClientContract;

export const isClientContract = (contract: Contract): contract is ClientContract => contract.tag === 'Client';

/** Errors any management route can answer: the gateway's and the renderer's. */
export const commonManagementErrors: ManagementErrorCode[] = ['INVALID_INPUT', 'MISSING_AUTH', 'INVALID_API_KEY', 'PAYLOAD_TOO_LARGE', 'RATE_LIMITED', 'SERVER_ERROR'];

/** Errors any customer portal route can answer: it takes no API key. */
export const commonPortalErrors: ManagementErrorCode[] = ['INVALID_INPUT', 'PAYLOAD_TOO_LARGE', 'RATE_LIMITED', 'SERVER_ERROR'];

const example = {
  appId: '3f1c2b9e-8d7a-4c51-9e2f-6b0a1d2c3e4f',
  subscriptionId: '9b2e7c41-5a3d-4f86-b1c0-2d9e8f7a6b5c',
  key: '7K2QX-M4TZP-9W3RD-HV8NB-C6YJE',
  otherKey: 'ABCDE-FGHJK-MNPQR-STVWX-YZ012',
  createdAt: '2026-03-01T12:00:00.000Z',
  webhookId: '6a4f1e2d-0b9c-4d7e-8f3a-2c5b1e9d7a60',
};

const apiKeyExample = {
  key_id: '0c7d5e2a-91f4-4b3e-a6d8-5f2c1b9e7a34',
  name: 'Support desk',
  hint: 'lsk_Q3vT',
  role: 'support',
  apps: [example.appId],
  status: 'active',
  created_at: example.createdAt,
  revoked_at: null,
};

const signingKeyExample = {
  key_id: 'kxQ0f1oYQ3cJ9m1m3k2o7cOQ5kq1dY5S8m3F2j2w9sE',
  algorithm: 'ed25519',
  public_key: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
  public_key_pem: '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n-----END PUBLIC KEY-----\n',
  jwk: { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'kxQ0f1oYQ3cJ9m1m3k2o7cOQ5kq1dY5S8m3F2j2w9sE', alg: 'EdDSA', use: 'sig' },
  created_at: example.createdAt,
};

const licenseExample = {
  key: example.key,
  app_id: example.appId,
  subscription_id: example.subscriptionId,
  subscription_name: 'Pro',
  subscription_level: 2,
  status: 'active',
  created_at: example.createdAt,
  expires_at: '2026-03-31T12:00:00.000Z',
  initial_duration: 2592000,
  first_used_at: null,
  last_login: null,
  hwid: null,
  hwid_lock: true,
  hwid_reset_allowed: true,
  hwid_reset_interval: 604800,
  last_hwid_reset_at: null,
  username: null,
  tags: ['reseller-a'],
  metadata: { order: 1042 },
  features: [] as string[],
  effective_features: ['reports'],
  usage_limits: {},
  usage: [] as unknown[],
};

const usageExample = {
  counter: 'exports',
  used: 4,
  limit: 50,
  overage: 5,
  remaining: 51,
  period: 'month',
  resets_at: '2026-04-01T00:00:00.000Z',
};

const bulkExample = { succeeded: [example.key], failed: [{ license_key: example.otherKey, error_code: 'LICENSE_NOT_FOUND' }] };

const subscriptionExample = {
  subscription_id: example.subscriptionId,
  app_id: example.appId,
  name: 'Pro',
  level: 2,
  single_key_per_hwid: true,
  status: 'active',
  created_at: example.createdAt,
  features: ['reports'],
  usage_limits: { exports: { limit: 50, period: 'month', overage: 5 } },
  grace_seconds: 259200,
};

const webhookExample = {
  webhook_id: example.webhookId,
  url: 'https://example.com/hooks/licensing',
  events: ['license.created', 'license.deleted'],
  description: 'CRM',
  enabled: true,
  created_at: example.createdAt,
};

const blacklistExample = { app_id: example.appId, type: 'asn', value: '13335', reason: 'datacenter traffic', created_at: example.createdAt };

const authExample = {
  key: example.key,
  created_at: example.createdAt,
  expires_at: '2026-03-31T12:00:00.000Z',
  initial_duration: '2592000',
  first_used_at: '2026-03-02T08:30:00.000Z',
  hwid_lock: true,
  last_hwid_reset_at: null,
  hwid_reset_cooldown: 0,
  hwid_reset_allowed: true,
  username: null,
  last_login: '2026-03-02T08:30:00.000Z',
  subscription_level: 2,
  subscription_name: 'Pro',
};

/**
 * The client body as documented: `/auth` reads `license`, or `username` with
 * `password` when no license is sent; `""` and `null` count as absent.
 */
const clientBody = {
  app_id: z.string().check(z.uuid()),
  license: z.optional(z.nullable(z.string())),
  username: z.optional(z.nullable(z.string())),
  password: z.optional(z.nullable(z.string())),
};
const hwid = z.optional(z.nullable(z.string().check(z.maxLength(256))));
const nonce = z.optional(z.string().check(z.regex(noncePattern)));

const borrowSeconds = z.optional(z.nullable(z.int().check(z.minimum(borrowSecondsLimits.min), z.maximum(borrowSecondsLimits.max))));
const authBody = z.object({ ...clientBody, hwid, offline_token: z.optional(z.boolean()), borrow_seconds: borrowSeconds, nonce });
const registerBody = z.object({
  app_id: clientBody.app_id,
  license: z.string(),
  username: z.string().check(z.minLength(3), z.maxLength(50)),
  password: z.string().check(z.minLength(8)),
  nonce,
});
const resetHwidBody = z.object({ ...clientBody, hwid, nonce });
const releaseBody = z.object({ ...clientBody, hwid: z.string().check(z.minLength(1), z.maxLength(256)), nonce });
const trialBody = z.object({ app_id: clientBody.app_id, hwid: z.string().check(z.minLength(1), z.maxLength(256)), nonce });
const usageBody = z.object({
  ...clientBody,
  hwid,
  counter: entitlementName,
  amount: z.optional(z.int().check(z.minimum(1), z.maximum(maxUsageAmount))),
  usage_id: nonce,
  nonce,
});

const lifetimeSeconds = z.optional(z.nullable(z.int().check(z.minimum(licenseFileSecondsLimits.min), z.maximum(licenseFileSecondsLimits.max))));
const activationRequest = z.string().check(z.regex(/^lfr1\.[A-Za-z0-9_-]+$/), z.maxLength(maxCodeLength));
const licenseFileBody = z.union([
  z.object({ ...clientBody, hwid: z.string().check(z.minLength(1), z.maxLength(256)), lifetime_seconds: lifetimeSeconds, encrypt: z.optional(z.nullable(z.boolean())), nonce }),
  z.object({ request: activationRequest, app_id: z.optional(clientBody.app_id), nonce }),
]);
const returnBody = z.object({ request: z.string().check(z.regex(/^lfx1\.[A-Za-z0-9_-]+$/), z.maxLength(maxCodeLength)), app_id: z.optional(clientBody.app_id), nonce });
/** A license file as the examples show one: a compact JWS, shortened. */
const licenseFileExample = 'eyJhbGciOiJFZERTQSIsImtpZCI6Ik…In0.eyJpc3MiOiIzZjFjMmI5ZS…In0.q0mV1…';

/** `/auth` and `/reset-hwid` authenticate alike (docs/client-api.md, "POST /reset-hwid"): their 400s and first 403s are the same. */
const authBadRequest = [
  clientMessages.invalidJson,
  clientMessages.appIdRequired,
  clientMessages.appIdFormat,
  clientMessages.noAuthMethod,
  clientMessages.hwidFormat,
  clientMessages.hwidProto,
  clientMessages.invalidNonce,
  clientMessages.invalidContentDigest,
];
const authenticationFailures: ClientFailureCode[] = [
  'INVALID_APP_ID',
  'APPLICATION_NOT_FOUND',
  'APPLICATION_NOT_ACTIVE',
  'TEAM_ERROR',
  'COUNTRY_BLACKLISTED',
  'ASN_BLACKLISTED',
  'IP_BLACKLISTED',
  'HWID_BLACKLISTED',
  'LICENSE_NOT_FOUND',
  'INVALID_USERNAME_OR_PASSWORD',
  'LICENSE_NOT_ACTIVE',
  'LICENSE_EXPIRED',
  'SUBSCRIPTION_ERROR',
  'SUBSCRIPTION_NOT_ACTIVE',
];

const stripePrices = { price_1QaZ2bC3dE4fG5hI: { subscription_id: example.subscriptionId, duration_unit: 'years', duration_value: 1, max_devices: 2 } };

/** What /integration/stripe/set and /integration/stripe/get answer. */
const stripeConnectionExample = {
  app_id: example.appId,
  webhook_secret: 'whsec_…H5aL',
  prices: stripePrices,
  webhook_path: `/stripe/webhook/${example.appId}`,
  created_at: example.createdAt,
  updated_at: example.createdAt,
};

export const contracts: Record<RoutePath, Contract> = {
  '/auth': {
    tag: 'Client',
    summary: 'Authenticate an end user by license key or username and password',
    description:
      'The checks run in the order docs/client-api.md gives under POST /auth, and a client sees the first that fails. With `"offline_token": true` a successful answer carries `data.offline_token`, a JWT signed with the application key. On a floating license (`lease_seconds` set, `hwid_lock` on) each /auth is the heartbeat that renews this device\'s lease or takes a free seat, and `data.lease_expires_at` says until when; `borrow_seconds` borrows the seat for offline work and always carries a token that ends with the lease, and a token comes only that way there: `"offline_token": true` alone gives none (docs/client-api.md, "Borrowing a floating seat"). Answers are signed (RFC 9421) when the application has a key; a `nonce` (body or `Accept-Signature`) is echoed in `Signature-Input`, and a request `Content-Digest` that matches the body is covered as `"content-digest";req`.',
    request: authBody,
    requestExample: { app_id: example.appId, license: example.key, hwid: 'desktop-7f3a' },
    successMessages: [
      'LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY',
      'LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY',
      'LICENSE_VERIFIED_USED_AND_UNLOCKED_KEY',
      'LICENSE_VERIFIED_USED_AND_LOCKED_KEY',
    ],
    answer: answers.authData,
    answerExample: { success: true, message: 'LICENSE_VERIFIED_USED_AND_LOCKED_KEY', data: authExample },
    badRequest: [...authBadRequest, clientMessages.invalidBorrowSeconds],
    failures: [
      ...authenticationFailures,
      'LICENSE_NOT_FLOATING',
      'HWID_NOT_PROVIDED',
      'HWID_MISMATCH',
      'SEATS_EXHAUSTED',
      'DEVICE_ALREADY_REGISTERED_WITH_OTHER_LICENSE',
    ],
  },
  '/register': {
    tag: 'Client',
    summary: 'Set the username and password of a license',
    description: 'Binds credentials to an existing license so the end user can sign in with them instead of the key.',
    request: registerBody,
    requestExample: { app_id: example.appId, license: example.key, username: 'ana', password: 'correct horse' },
    successMessages: [registeredMessage],
    answerExample: { success: true, message: registeredMessage },
    badRequest: [
      clientMessages.invalidJson,
      clientMessages.appIdRequired,
      clientMessages.appIdFormat,
      clientMessages.licenseRequired,
      clientMessages.usernameRequired,
      clientMessages.passwordRequired,
      clientMessages.usernameLength,
      clientMessages.passwordMinLength,
      clientMessages.passwordMaxBytes,
      clientMessages.invalidNonce,
      clientMessages.invalidContentDigest,
    ],
    failures: ['INVALID_APP_ID', 'LICENSE_NOT_FOUND', 'USERNAME_TAKEN'],
  },
  '/reset-hwid': {
    tag: 'Client',
    summary: 'Release the device bound to a license (self-service)',
    description:
      'Authenticates like `/auth`, then releases `hwid` (or every device without it) when the owner allows resets and the cooldown has passed (see the Client API page, POST /reset-hwid).',
    request: resetHwidBody,
    requestExample: { app_id: example.appId, license: example.key, hwid: 'desktop-7f3a' },
    successMessages: ['HWID_RESET'],
    answer: answers.authData,
    answerExample: {
      success: true,
      message: 'HWID_RESET',
      data: { ...authExample, last_hwid_reset_at: '2026-03-05T09:00:00.000Z', hwid_reset_cooldown: 604800, hwid_reset_allowed: false },
    },
    badRequest: authBadRequest,
    failures: [
      ...authenticationFailures,
      'HWID_RESET_NOT_ALLOWED',
      'HWID_NOT_BOUND',
      'LEASE_BORROWED',
      'HWID_RESET_COOLDOWN',
    ],
  },
  '/release': {
    tag: 'Client',
    summary: 'Give up the floating seat of this device',
    description:
      'Authenticates like `/auth`, then frees the seat `hwid` leases on a floating license at once (see the Client API page, POST /release). A borrowed seat cannot be released before its end.',
    request: releaseBody,
    requestExample: { app_id: example.appId, license: example.key, hwid: 'desktop-7f3a' },
    successMessages: ['SEAT_RELEASED'],
    answer: answers.authData,
    answerExample: { success: true, message: 'SEAT_RELEASED', data: { ...authExample, hwids: ['laptop-21c9'], max_devices: 5, lease_expires_at: null } },
    badRequest: authBadRequest,
    failures: [...authenticationFailures, 'HWID_NOT_PROVIDED', 'LICENSE_NOT_FLOATING', 'HWID_NOT_BOUND', 'LEASE_BORROWED'],
  },

  '/usage': {
    tag: 'Client',
    summary: 'Count usage against a metered counter of a license',
    description:
      "Authenticates like `/auth` (without a first use's effects: an unused license, or a device not yet bound, is `LICENSE_NOT_ACTIVATED`), then adds `amount` to `counter` unless that would pass `limit + overage` in the counter's current UTC period. The same `usage_id` within 24 hours counts once and is answered as the first time (see the Client API page, POST /usage).",
    request: usageBody,
    requestExample: { app_id: example.appId, license: example.key, hwid: 'desktop-7f3a', counter: 'exports', amount: 1, usage_id: 'export-2026-03-02-0001' },
    successMessages: ['USAGE_RECORDED'],
    answer: answers.usageCounter,
    answerExample: { success: true, message: 'USAGE_RECORDED', data: usageExample },
    badRequest: [...authBadRequest.slice(0, -2), clientMessages.invalidNonce, clientMessages.invalidUsage, clientMessages.invalidContentDigest],
    failures: [
      ...authenticationFailures,
      'LICENSE_NOT_ACTIVATED',
      'HWID_NOT_PROVIDED',
      'HWID_MISMATCH',
      'USAGE_COUNTER_UNKNOWN',
      'USAGE_LIMIT_REACHED',
    ],
  },

  '/license-file': {
    tag: 'Client',
    summary: 'Check out a license file for a device, online or from an activation request',
    description:
      'Authenticates like `/auth`, with all of its checks and effects (first use, binding, seats), and answers the license data plus `license_file`: a compact JWS (`typ: license+jwt`) signed with the application key, holding the offline token\'s claims, `data` (this license data) and `air_gapped`, valid for `lifetime_seconds` (3600 to the application\'s `max_license_file_seconds`; default that maximum) and never past the license\'s end or grace end. With `"encrypt": true` the file is a compact JWE (`dir`, `A256GCM`) keyed by HKDF-SHA256 of the license key and HWID. On a floating license the file borrows the seat for its lifetime, bounded by `max_borrow_seconds`. `{"request": "lfr1…"}` alone takes an activation request made by an offline device: its fields are used as if sent, its nonce is signed into the answer and carried by the file, and the file is `air_gapped` (see the Client API page, POST /license-file).',
    request: licenseFileBody,
    requestExample: { app_id: example.appId, license: example.key, hwid: 'desktop-7f3a', lifetime_seconds: 2592000 },
    successMessages: [
      'LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY',
      'LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY',
      'LICENSE_VERIFIED_USED_AND_UNLOCKED_KEY',
      'LICENSE_VERIFIED_USED_AND_LOCKED_KEY',
    ],
    answer: answers.licenseFileData,
    answerExample: { success: true, message: 'LICENSE_VERIFIED_USED_AND_LOCKED_KEY', data: { ...authExample, license_file: licenseFileExample } },
    badRequest: [clientMessages.invalidJson, clientMessages.invalidActivationRequest, ...authBadRequest.slice(1, -1), clientMessages.invalidLicenseFileRequest, clientMessages.invalidContentDigest],
    failures: [...authenticationFailures, 'HWID_MISMATCH', 'SEATS_EXHAUSTED', 'DEVICE_ALREADY_REGISTERED_WITH_OTHER_LICENSE'],
  },
  '/license-file/return': {
    tag: 'Client',
    summary: 'Return a license file by its return code: frees its device',
    description:
      'Takes the return code (`lfx1.…`) a program made when it deleted its license file, and frees the file\'s device: its binding, or on a floating license its seat, borrowed or not. A return is a reset: it follows the license\'s reset rules and answers `/reset-hwid`\'s codes. The returned file itself stays valid until its `exp` (see the Client API page, POST /license-file/return).',
    request: returnBody,
    requestExample: { request: `lfx1.${Buffer.from(JSON.stringify({ app_id: example.appId, license: example.key, hwid: 'desktop-7f3a', jti: '5b0f3a1e-2c4d-4e6f-8a9b-0c1d2e3f4a5b' })).toString('base64url')}` },
    successMessages: [licenseFileReturnedMessage],
    answer: answers.authData,
    answerExample: {
      success: true,
      message: licenseFileReturnedMessage,
      data: { ...authExample, last_hwid_reset_at: '2026-03-05T09:00:00.000Z', hwid_reset_cooldown: 604800, hwid_reset_allowed: false },
    },
    badRequest: [clientMessages.invalidJson, clientMessages.invalidReturnCode, clientMessages.invalidNonce, clientMessages.invalidContentDigest],
    // A return code names its license by key: no username, so no INVALID_USERNAME_OR_PASSWORD.
    failures: [...authenticationFailures.filter((code) => code !== 'INVALID_USERNAME_OR_PASSWORD'), 'HWID_RESET_NOT_ALLOWED', 'HWID_NOT_BOUND', 'HWID_RESET_COOLDOWN'],
  },
  '/trial': {
    tag: 'Client',
    summary: "Start or resume this device's trial",
    description:
      'One trial per device and application, however often it asks (see the Client API page, POST /trial). The first request of a device makes a license tagged `trial`, in use from now and locked to the device (`TRIAL_STARTED`); later requests answer the same license while it is still a trial and has not ended (`TRIAL_RESUMED`, an /auth of it). `data.license` is the key the program keeps and checks with from then on. A trial that ended or was deleted is `TRIAL_EXPIRED`, a bought one `TRIAL_CONVERTED`; `TRIAL_LIMIT_REACHED` when the source address started `per_ip_per_day` trials of the application in the last 24 hours. Answers are signed as /auth\'s are.',
    request: trialBody,
    requestExample: { app_id: example.appId, hwid: 'desktop-7f3a' },
    successMessages: ['TRIAL_STARTED', 'TRIAL_RESUMED'],
    answer: answers.trialData,
    answerExample: { success: true, message: 'TRIAL_STARTED', data: { ...authExample, license: example.key } },
    badRequest: [clientMessages.invalidJson, clientMessages.appIdRequired, clientMessages.appIdFormat, clientMessages.invalidHwid, clientMessages.invalidNonce, clientMessages.invalidContentDigest],
    failures: [
      'INVALID_APP_ID',
      'COUNTRY_BLACKLISTED',
      'ASN_BLACKLISTED',
      'IP_BLACKLISTED',
      'HWID_BLACKLISTED',
      'APPLICATION_NOT_ACTIVE',
      'TEAM_ERROR',
      'TRIALS_DISABLED',
      'TRIAL_EXPIRED',
      'TRIAL_CONVERTED',
      'LICENSE_NOT_ACTIVE',
      'SUBSCRIPTION_ERROR',
      'SUBSCRIPTION_NOT_ACTIVE',
      'HWID_MISMATCH',
      'TRIAL_LIMIT_REACHED',
      'DEVICE_ALREADY_REGISTERED_WITH_OTHER_LICENSE',
    ],
  },

  '/license/create': {
    tag: 'Licenses',
    summary: 'Create a license',
    description:
      'A generated key, or your own `license_key` (8 to 64 characters, unique within your team). Without `hwid_reset_allowed` or `hwid_reset_interval` the license gets the application\'s defaults (`/app/settings`).',
    request: licenseSchemas.createSchema,
    requestExample: { app_id: example.appId, subscription_id: example.subscriptionId, duration_unit: 'days', duration_value: 30, hwid_lock: true },
    answer: answers.licenseRecord,
    answerExample: licenseExample,
    errors: ['ACCESS_DENIED', 'APP_NOT_FOUND', 'SUBSCRIPTION_NOT_FOUND', 'LICENSE_KEY_TAKEN', 'USERNAME_TAKEN'],
  },
  '/license/create-bulk': {
    tag: 'Licenses',
    summary: 'Create up to 1000 licenses at once',
    description:
      'Without a `request_id`, all or none: on a failure no license is left behind and the answer is 500 `SERVER_ERROR`, or 503 `SERVICE_UNAVAILABLE` when the store was too slow to write them all within the time budget (docs/management-api.md#time-budget-of-bulk-routes). With a `request_id` the licenses written are kept, and the same body sent again under it writes the rest of exactly those licenses and answers all of them. Without `hwid_reset_allowed` or `hwid_reset_interval` the licenses get the application\'s defaults (`/app/settings`).',
    request: licenseSchemas.createBulkSchema,
    requestExample: { key_amount: 2, app_id: example.appId, subscription_id: example.subscriptionId, duration_unit: 'days', duration_value: 30 },
    answer: z.array(answers.licenseRecord),
    answerExample: [licenseExample, { ...licenseExample, key: example.otherKey }],
    errors: ['ACCESS_DENIED', 'APP_NOT_FOUND', 'SUBSCRIPTION_NOT_FOUND', 'SERVICE_UNAVAILABLE'],
  },
  '/license/extend': {
    tag: 'Licenses',
    summary: 'Extend a license',
    description: 'Adds `extend_seconds` to the expiry (or to the initial duration of a license not yet used).',
    request: licenseSchemas.extendSchema,
    requestExample: { license_key: example.key, extend_seconds: 604800 },
    answer: answers.licenseRecord,
    answerExample: { ...licenseExample, expires_at: '2026-04-07T12:00:00.000Z' },
    errors: ['LICENSE_NOT_FOUND', 'CONFLICT'],
  },
  '/license/extend-bulk': {
    tag: 'Licenses',
    summary: 'Extend up to 1000 licenses, each exactly once',
    description:
      'A `request_id` makes a retried request extend no key twice, for seven days. A key not started within the time budget answers `SERVICE_UNAVAILABLE`; 503 `SERVICE_UNAVAILABLE` when the licenses could not be read, nothing changed (docs/management-api.md#time-budget-of-bulk-routes).',
    request: licenseSchemas.extendBulkSchema,
    requestExample: { license_keys: [example.key, example.otherKey], extend_seconds: 604800, request_id: 'renewals-2026-03' },
    answer: answers.bulkResult,
    answerExample: bulkExample,
    errors: ['SERVICE_UNAVAILABLE'],
  },
  '/license/delete': {
    tag: 'Licenses',
    summary: 'Delete a license',
    request: licenseSchemas.licenseKeySchema,
    requestExample: { license_key: example.key },
    answer: answers.deletedLicense,
    answerExample: { key: example.key, deleted: true },
    errors: ['LICENSE_NOT_FOUND', 'CONFLICT'],
  },
  '/license/delete-bulk': {
    tag: 'Licenses',
    summary: 'Delete up to 1000 licenses',
    request: licenseSchemas.licenseKeysSchema,
    requestExample: { license_keys: [example.key, example.otherKey] },
    answer: answers.bulkResult,
    answerExample: bulkExample,
    errors: [],
  },
  '/license/get': {
    tag: 'Licenses',
    summary: 'Read a license',
    request: licenseSchemas.licenseKeySchema,
    requestExample: { license_key: example.key },
    answer: answers.licenseRecord,
    answerExample: licenseExample,
    errors: ['LICENSE_NOT_FOUND'],
  },
  '/license/get-bulk': {
    tag: 'Licenses',
    summary: "List an application's licenses, newest first",
    description:
      'Filters by status, subscription, tag, expired, unused and expiring within a number of days; sorts by creation or by expiry (licenses that have one); pages with `next_cursor`.',
    request: licenseSchemas.getBulkSchema,
    requestExample: { app_id: example.appId, status: 'active', per_page: 25 },
    answer: z.array(answers.licenseRecord),
    answerExample: [licenseExample],
    list: true,
    errors: ['ACCESS_DENIED', 'APP_NOT_FOUND'],
  },
  '/license/find': {
    tag: 'Licenses',
    summary: 'Find licenses by key, username, bound HWID or email',
    description:
      "Looks the query up in one application as a license key, a username, an HWID some license has bound and, when it holds an `@`, a customer's email (case-insensitive), through the table's own lookups (no scan): about 3 read units. Each match says how it matched; a device bound or an email set a moment ago may be found a second later.",
    request: licenseSchemas.findSchema,
    requestExample: { app_id: example.appId, query: 'alice' },
    answer: answers.foundLicenses,
    answerExample: { matches: [{ matched: ['username'], license: { ...licenseExample, username: 'alice' } }] },
    errors: ['ACCESS_DENIED', 'APP_NOT_FOUND'],
  },
  '/license/update-status': {
    tag: 'Licenses',
    summary: 'Pause or resume a license',
    request: licenseSchemas.updateStatusSchema,
    requestExample: { license_key: example.key, status: 'paused' },
    answer: answers.licenseRecord,
    answerExample: { ...licenseExample, status: 'paused' },
    errors: ['LICENSE_NOT_FOUND'],
  },
  '/license/update-status-bulk': {
    tag: 'Licenses',
    summary: 'Pause or resume up to 1000 licenses',
    request: licenseSchemas.updateStatusBulkSchema,
    requestExample: { license_keys: [example.key, example.otherKey], status: 'paused' },
    answer: answers.bulkResult,
    answerExample: bulkExample,
    errors: [],
  },
  '/license/update-subscription': {
    tag: 'Licenses',
    summary: 'Move a license to another subscription of its application',
    request: licenseSchemas.updateSubscriptionSchema,
    requestExample: { license_key: example.key, subscription_id: example.subscriptionId },
    answer: answers.licenseRecord,
    answerExample: licenseExample,
    errors: ['ACCESS_DENIED', 'LICENSE_NOT_FOUND', 'SUBSCRIPTION_NOT_FOUND', 'CONFLICT'],
  },
  '/license/update-user-credentials': {
    tag: 'Licenses',
    summary: 'Set the username (and password) of a license',
    request: licenseSchemas.updateCredentialsSchema,
    requestExample: { license_key: example.key, username: 'ana', password: 'correct horse' },
    answer: answers.licenseRecord,
    answerExample: { ...licenseExample, username: 'ana' },
    errors: ['LICENSE_NOT_FOUND', 'USERNAME_TAKEN', 'CONFLICT'],
  },
  '/license/update-metadata': {
    tag: 'Licenses',
    summary: "Replace a license's metadata",
    request: licenseSchemas.updateMetadataSchema,
    requestExample: { license_key: example.key, metadata: { order: 1042, seats_paid: 3 } },
    answer: answers.licenseRecord,
    answerExample: { ...licenseExample, metadata: { order: 1042, seats_paid: 3 } },
    errors: ['LICENSE_NOT_FOUND'],
  },

  '/license/update-features': {
    tag: 'Licenses',
    summary: "Replace a license's own features",
    description: "The license's subscription's features still apply beside these; `effective_features` shows the union (see the Licensing models page, Entitlements).",
    request: licenseSchemas.updateFeaturesSchema,
    requestExample: { license_key: example.key, features: ['export.pdf', 'sync'] },
    answer: answers.licenseRecord,
    answerExample: { ...licenseExample, features: ['export.pdf', 'sync'], effective_features: ['export.pdf', 'reports', 'sync'] },
    errors: ['LICENSE_NOT_FOUND'],
  },
  '/license/update-usage-limits': {
    tag: 'Licenses',
    summary: "Replace a license's own usage limits",
    description: "A counter here replaces the subscription's counter of the same name; counts already made stay (see the Licensing models page, Metered usage).",
    request: licenseSchemas.updateUsageLimitsSchema,
    requestExample: { license_key: example.key, usage_limits: { exports: { limit: 100, period: 'month', overage: 10 } } },
    answer: answers.licenseRecord,
    answerExample: { ...licenseExample, usage_limits: { exports: { limit: 100, period: 'month', overage: 10 } }, usage: [{ ...usageExample, limit: 100, remaining: 106 }] },
    errors: ['LICENSE_NOT_FOUND'],
  },
  '/license/reset-usage': {
    tag: 'Licenses',
    summary: "Set a license's usage counters to 0",
    description: 'One `counter`, or without it every counter of the license.',
    request: licenseSchemas.resetUsageSchema,
    requestExample: { license_key: example.key, counter: 'exports' },
    answer: answers.licenseRecord,
    answerExample: { ...licenseExample, usage: [{ ...usageExample, used: 0, remaining: 55 }] },
    errors: ['LICENSE_NOT_FOUND'],
  },
  '/license/update-email': {
    tag: 'Licenses',
    summary: "Set or remove a license's customer email",
    description:
      'The address is stored trimmed and lower-cased (at most 254 characters); `null` removes it. `/license/find` finds the license by it once the events consumer has seen the change, usually within a second.',
    request: licenseSchemas.updateEmailSchema,
    requestExample: { license_key: example.key, email: 'ana@example.com' },
    answer: answers.licenseRecord,
    answerExample: { ...licenseExample, email: 'ana@example.com' },
    errors: ['LICENSE_NOT_FOUND'],
  },

  '/hwid/edit': {
    tag: 'Devices',
    summary: "Set or clear a license's device",
    request: hwidSchemas.editHwidSchema,
    requestExample: { license_key: example.key, hwid: 'desktop-7f3a' },
    answer: answers.licenseRecord,
    answerExample: { ...licenseExample, hwid: 'desktop-7f3a' },
    errors: ['LICENSE_NOT_FOUND', 'HWID_IN_USE', 'CONFLICT'],
  },
  '/hwid/toggle-lock': {
    tag: 'Devices',
    summary: 'Turn the device lock on or off',
    description: 'Without `hwid_lock` the lock is flipped.',
    request: hwidSchemas.toggleLockSchema,
    requestExample: { license_key: example.key, hwid_lock: false },
    answer: answers.licenseRecord,
    answerExample: { ...licenseExample, hwid_lock: false },
    errors: ['LICENSE_NOT_FOUND'],
  },
  '/hwid/toggle-lock-bulk': {
    tag: 'Devices',
    summary: 'Turn the device lock on or off for up to 1000 licenses',
    request: hwidSchemas.toggleLockBulkSchema,
    requestExample: { license_keys: [example.key, example.otherKey], hwid_lock: true },
    answer: answers.bulkResult,
    answerExample: bulkExample,
    errors: [],
  },
  '/hwid/toggle-reset-allowed': {
    tag: 'Devices',
    summary: 'Allow or forbid self-service device resets',
    description: 'Without `hwid_reset_allowed` the setting is flipped.',
    request: hwidSchemas.toggleResetAllowedSchema,
    requestExample: { license_key: example.key, hwid_reset_allowed: false },
    answer: answers.licenseRecord,
    answerExample: { ...licenseExample, hwid_reset_allowed: false },
    errors: ['LICENSE_NOT_FOUND'],
  },
  '/hwid/update-reset-interval': {
    tag: 'Devices',
    summary: 'Set the cooldown between self-service resets',
    request: hwidSchemas.updateResetIntervalSchema,
    requestExample: { license_key: example.key, hwid_reset_interval: 86400 },
    answer: answers.licenseRecord,
    answerExample: { ...licenseExample, hwid_reset_interval: 86400 },
    errors: ['LICENSE_NOT_FOUND'],
  },
  '/hwid/set-max-devices': {
    tag: 'Devices',
    summary: 'Set how many devices a license may bind (1 to 100)',
    request: hwidSchemas.setMaxDevicesSchema,
    requestExample: { license_key: example.key, max_devices: 3 },
    answer: answers.licenseRecord,
    answerExample: { ...licenseExample, hwids: [], max_devices: 3 },
    errors: ['LICENSE_NOT_FOUND', 'CONFLICT'],
  },
  '/hwid/set-lease': {
    tag: 'Devices',
    summary: 'Make a license floating: lease its seats for lease_seconds (60 to 2592000), or null for bindings for good',
    description:
      'With a number every device holds its seat until that long after its last `/auth`; from null, devices already bound get a lease from now. With null, live leases become bindings for good and ended ones are dropped. Leasing needs `hwid_lock` on: while it is off, `floating` in the record is false and `lease_seconds` has no effect.',
    request: hwidSchemas.setLeaseSchema,
    requestExample: { license_key: example.key, lease_seconds: 3600 },
    answer: answers.licenseRecord,
    answerExample: { ...licenseExample, hwids: [], max_devices: 5, lease_seconds: 3600, floating: true, leases: [] },
    errors: ['LICENSE_NOT_FOUND', 'CONFLICT'],
  },
  '/hwid/remove': {
    tag: 'Devices',
    summary: 'Release one device of a license',
    description: "Leaves the end user's reset cooldown untouched.",
    request: hwidSchemas.removeHwidSchema,
    requestExample: { license_key: example.key, hwid: 'desktop-7f3a' },
    answer: answers.licenseRecord,
    answerExample: licenseExample,
    errors: ['LICENSE_NOT_FOUND', 'HWID_NOT_FOUND', 'CONFLICT'],
  },

  '/subscription/create': {
    tag: 'Subscriptions',
    summary: 'Create a subscription tier',
    request: subscriptionSchemas.createSubscriptionSchema,
    requestExample: { app_id: example.appId, name: 'Pro', level: 2, single_key_per_hwid: true },
    answer: answers.subscriptionRecord,
    answerExample: subscriptionExample,
    errors: ['ACCESS_DENIED', 'APP_NOT_FOUND'],
  },
  '/subscription/edit': {
    tag: 'Subscriptions',
    summary: 'Change a subscription tier',
    request: subscriptionSchemas.editSubscriptionSchema,
    requestExample: { subscription_id: example.subscriptionId, status: 'inactive' },
    answer: answers.subscriptionRecord,
    answerExample: { ...subscriptionExample, status: 'inactive' },
    errors: ['ACCESS_DENIED', 'SUBSCRIPTION_NOT_FOUND'],
  },
  '/subscription/delete': {
    tag: 'Subscriptions',
    summary: 'Delete a subscription tier',
    description: 'Its licenses stay; `/auth` answers them `SUBSCRIPTION_ERROR` until they move to another tier.',
    request: subscriptionSchemas.deleteSubscriptionSchema,
    requestExample: { subscription_id: example.subscriptionId },
    answer: answers.deletedSubscription,
    answerExample: { subscription_id: example.subscriptionId, deleted: true },
    errors: ['ACCESS_DENIED', 'SUBSCRIPTION_NOT_FOUND'],
  },
  '/subscription/get-bulk': {
    tag: 'Subscriptions',
    summary: "List an application's subscription tiers",
    request: subscriptionSchemas.listSubscriptionsSchema,
    requestExample: { app_id: example.appId },
    answer: z.array(answers.subscriptionRecord),
    answerExample: [subscriptionExample],
    list: true,
    errors: ['ACCESS_DENIED', 'APP_NOT_FOUND'],
  },

  '/blacklist/add': {
    tag: 'Blacklists',
    summary: 'Block a country, ASN, IP address or network, or HWID',
    request: blacklistSchemas.addBlacklistSchema,
    requestExample: { app_id: example.appId, type: 'asn', value: '13335', reason: 'datacenter traffic' },
    answer: answers.blacklistEntry,
    answerExample: blacklistExample,
    errors: ['ACCESS_DENIED', 'APP_NOT_FOUND'],
  },
  '/blacklist/delete': {
    tag: 'Blacklists',
    summary: 'Remove a blacklist entry',
    request: blacklistSchemas.deleteBlacklistSchema,
    requestExample: { app_id: example.appId, type: 'asn', value: '13335' },
    answer: answers.deletedBlacklistEntry,
    answerExample: { type: 'asn', value: '13335', deleted: true },
    errors: ['ACCESS_DENIED', 'APP_NOT_FOUND', 'BLACKLIST_ENTRY_NOT_FOUND'],
  },
  '/blacklist/get-bulk': {
    tag: 'Blacklists',
    summary: "List an application's blacklist",
    request: blacklistSchemas.listBlacklistSchema,
    requestExample: { app_id: example.appId, type: 'asn' },
    answer: z.array(answers.blacklistEntry),
    answerExample: [blacklistExample],
    list: true,
    errors: ['ACCESS_DENIED', 'APP_NOT_FOUND'],
  },

  '/app/list': {
    tag: 'Applications',
    summary: "List your team's applications",
    request: appSchemas.listAppsSchema,
    requestExample: {},
    answer: z.array(answers.appSummary),
    answerExample: [{ app_id: example.appId, name: 'My app', status: 'active', created_at: example.createdAt }],
    errors: [],
  },
  '/app/settings': {
    tag: 'Applications',
    summary: "Read or change an application's settings",
    description:
      'Sets the settings the body names and answers all of them; with only `app_id` they are only read. `default_hwid_reset_allowed` (true until set) and `default_hwid_reset_interval` (seconds, 0 until set) are what `/license/create` and `/license/create-bulk` give a new license whose request does not set `hwid_reset_allowed` or `hwid_reset_interval`; existing licenses keep theirs. Each self-service `/reset-hwid` lets another machine obtain an offline token, so an interval at least the offline token lifetime, or resets off, bounds the machines a shared key can serve. `max_license_file_seconds` (2592000 until set, 3600 to 315360000) is the longest license file `/license-file` makes. `trial` (null until set; null turns trials off) configures POST /trial: the tier (`subscription_id`, one of this application\'s), `duration_seconds` (3,600 to 7,776,000), `max_devices` (default 1), `features`, and `per_ip_per_day` (1 to 1,000, default 5) (docs/management-api.md#trials). `portal` (off until set; sent whole, defaults filled in) is the customer portal: `enabled` (default false), `sender_name` (the From name of its emails, 1 to 64 characters), `support_url` (https), `allow_device_release` and `allow_license_files` (default true); switching it on in a deployment that sends no email is 409 `NO_EMAIL_SENDER` (docs/portal.md#switching-it-on).',
    request: appSchemas.settingsSchema,
    requestExample: { app_id: example.appId, offline_token_ttl: 86400, default_hwid_reset_interval: 86400 },
    answer: answers.appSettings,
    answerExample: { app_id: example.appId, offline_token_ttl: 86400, default_hwid_reset_allowed: true, default_hwid_reset_interval: 86400, max_borrow_seconds: 604800, max_license_file_seconds: 2592000, trial: null, portal: { enabled: false, allow_device_release: true, allow_license_files: true } },
    errors: ['ACCESS_DENIED', 'APP_NOT_FOUND', 'SUBSCRIPTION_NOT_FOUND', 'NO_EMAIL_SENDER'],
  },
  '/app/signing-key': {
    tag: 'Applications',
    summary: "The public half of the application's signing key",
    description: 'Verifies signed client answers and offline tokens (docs/verifying-answers.md).',
    request: appSchemas.appIdSchema,
    requestExample: { app_id: example.appId },
    answer: answers.signingKey,
    answerExample: signingKeyExample,
    errors: ['ACCESS_DENIED', 'APP_NOT_FOUND'],
  },
  '/app/stats': {
    tag: 'Applications',
    summary: 'License totals and daily counts',
    request: appSchemas.statsSchema,
    requestExample: { app_id: example.appId, days: 2 },
    answer: answers.appStats,
    answerExample: {
      totals: { licenses: 120, active: 97, paused: 3, expired: 20, unused: 41 },
      days: [
        { date: '2026-03-04', created: 10, activated: 4, logins: 310, auth_failures: 12 },
        { date: '2026-03-05', created: 0, activated: 2, logins: 295, auth_failures: 7 },
      ],
    },
    errors: ['ACCESS_DENIED', 'APP_NOT_FOUND'],
  },
  '/app/create': {
    tag: 'Applications',
    summary: 'Create an application with its signing key',
    description:
      'A new active application of your team, with a new signing key (docs/management-api.md#applications). With a `request_id`, the same request sent again (same team, same `request_id`) answers the application the first one made, as stored, instead of making another. A key limited to applications gets `ACCESS_DENIED` (docs/api-keys.md#keys-limited-to-applications).',
    request: appSchemas.createAppSchema,
    requestExample: { name: 'My second app', request_id: 'create-app-2026-03-04-1' },
    answer: answers.createdApp,
    answerExample: { app_id: example.appId, name: 'My second app', status: 'active', created_at: example.createdAt, signing_key: signingKeyExample },
    errors: [],
  },
  '/app/update': {
    tag: 'Applications',
    summary: "Rename an application, or change its status",
    description:
      'Sets what the body names: `name`, and `status` (`active`, `inactive`). While an application is inactive its clients\' `/auth` answers `APPLICATION_NOT_ACTIVE` (docs/client-api.md#check-order); management routes keep working.',
    request: appSchemas.updateAppSchema,
    requestExample: { app_id: example.appId, name: 'Renamed app', status: 'inactive' },
    answer: answers.appSummary,
    answerExample: { app_id: example.appId, name: 'Renamed app', status: 'inactive', created_at: example.createdAt },
    errors: ['ACCESS_DENIED', 'APP_NOT_FOUND'],
  },
  '/app/rotate-signing-key': {
    tag: 'Applications',
    summary: "Replace the application's signing key",
    description:
      'A new key pair replaces the current one at once; only the new key signs from then on, and the old one is forgotten. Clients that verify with the old public key reject every answer and offline token signed since (docs/verifying-answers.md): ship them the new key. Sent again, it rotates again; the answer is always the current key.',
    request: appSchemas.appIdSchema,
    requestExample: { app_id: example.appId },
    answer: answers.signingKey,
    answerExample: signingKeyExample,
    errors: ['ACCESS_DENIED', 'APP_NOT_FOUND'],
  },
  '/audit/get-bulk': {
    tag: 'Applications',
    summary: "An application's audit log, newest first",
    description:
      'Filters by license, event type, actor (`api_key:<8 hex>`, `client`, `admin`, `service`, `stripe`) and time (`from` inclusive, `to` exclusive, ISO 8601); the time range bounds the read itself, the other filters narrow what it reads (docs/management-api.md#audit-log). Pages with `next_cursor`, which is valid only with the `app_id` and filters it was issued for (otherwise 400 `INVALID_INPUT` naming `cursor`).',
    request: appSchemas.auditListSchema,
    requestExample: { app_id: example.appId, license_key: example.key },
    answer: z.array(answers.auditEvent),
    answerExample: [
      {
        id: '01JNRX4T6ZK3Q8V9W2Y5B7C1D0',
        type: 'license.status_changed',
        app_id: example.appId,
        subject: example.key,
        at: example.createdAt,
        actor: 'api_key:3f9c2a1b',
        before: { status: 'active' },
        after: { status: 'paused' },
      },
    ],
    list: true,
    errors: ['ACCESS_DENIED', 'APP_NOT_FOUND'],
  },
  '/apikey/create': {
    tag: 'API keys',
    summary: 'Make an API key for your team, with a role and optionally limited to applications',
    description:
      'Admin keys only (docs/api-keys.md). The answer is the only place the key is ever shown: store it now. Without `apps` the key reaches all of the team\'s applications, or, made by a key limited to applications, the same ones; an application outside the caller\'s is `ACCESS_DENIED`.',
    request: appSchemas.createApiKeySchema,
    requestExample: { role: 'support', apps: [example.appId], name: 'Support desk' },
    answer: answers.createdApiKey,
    answerExample: { ...apiKeyExample, api_key: 'lsk_Q3vT8Zr2pLm6YwN4kXc9HbJ7dFs5GtA1eRqU0oPi2nV' },
    errors: ['ACCESS_DENIED', 'APP_NOT_FOUND'],
  },
  '/apikey/list': {
    tag: 'API keys',
    summary: "List your team's API keys",
    description: 'Admin keys only. Never the key nor its hash: its first characters (`hint`) tell keys apart. Keys made before keys had ids (before roles) are not listed; they keep full rights until revoked with the admin CLI.',
    request: appSchemas.listAppsSchema,
    requestExample: {},
    answer: z.array(answers.apiKeySummary),
    answerExample: [apiKeyExample],
    errors: ['ACCESS_DENIED'],
  },
  '/apikey/revoke': {
    tag: 'API keys',
    summary: 'Revoke one of your team\'s API keys',
    description: 'Admin keys only. The key answers 401 `INVALID_API_KEY` once API Gateway\'s cached verdict for it ends (at most the authorizer cache time, 300 s by default; at once on the local server). A `key_id` that is not one of your team\'s keys is `ACCESS_DENIED`; revoking a revoked key answers it again.',
    request: appSchemas.apiKeyIdSchema,
    requestExample: { key_id: apiKeyExample.key_id },
    answer: answers.apiKeySummary,
    answerExample: { ...apiKeyExample, status: 'revoked', revoked_at: '2026-03-02T09:30:00.000Z' },
    errors: ['ACCESS_DENIED'],
  },
  '/apikey/current': {
    tag: 'API keys',
    summary: 'The role and applications of the calling key',
    description: 'Any key may ask; answered from the authorizer\'s verdict without a read. The dashboard hides what the role may not call (docs/api-keys.md).',
    request: appSchemas.listAppsSchema,
    requestExample: {},
    answer: answers.currentApiKey,
    answerExample: { role: 'support', apps: [example.appId] },
    errors: [],
  },

  '/webhook/create': {
    tag: 'Webhooks',
    summary: 'Add a webhook endpoint to an application',
    description:
      'At most 10 endpoints per application (409 `WEBHOOK_LIMIT_REACHED`). `events` lists event types, or `["*"]` for all. The `secret` signs every delivery (docs/webhooks.md#verifying-a-delivery) and is shown only in this answer and by `/webhook/rotate-secret`. The URL must be https and must not name a loopback, private, link-local, multicast or reserved address (docs/webhooks.md#targets).',
    request: webhookSchemas.createWebhookSchema,
    requestExample: { app_id: example.appId, url: 'https://example.com/hooks/licensing', events: ['license.created', 'license.deleted'], description: 'CRM' },
    answer: answers.webhookWithSecret,
    answerExample: { ...webhookExample, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0b1sZ8TjrwQ=' },
    errors: ['ACCESS_DENIED', 'APP_NOT_FOUND', 'WEBHOOK_LIMIT_REACHED'],
  },
  '/webhook/list': {
    tag: 'Webhooks',
    summary: "An application's webhook endpoints, oldest first",
    request: webhookSchemas.listWebhooksSchema,
    requestExample: { app_id: example.appId },
    answer: z.array(answers.webhook),
    answerExample: [webhookExample],
    errors: ['ACCESS_DENIED', 'APP_NOT_FOUND'],
  },
  '/webhook/update': {
    tag: 'Webhooks',
    summary: "Change an endpoint's URL, events, description or enabled flag",
    description: 'Enabling an endpoint clears its record of failures (docs/webhooks.md#retries-and-disabling).',
    request: webhookSchemas.updateWebhookSchema,
    requestExample: { webhook_id: example.webhookId, enabled: false },
    answer: answers.webhook,
    answerExample: { ...webhookExample, enabled: false },
    errors: ['ACCESS_DENIED', 'WEBHOOK_NOT_FOUND'],
  },
  '/webhook/delete': {
    tag: 'Webhooks',
    summary: 'Delete an endpoint',
    description: 'Nothing more is sent to it, retries included; its delivery log expires with its deliveries.',
    request: webhookSchemas.webhookIdSchema,
    requestExample: { webhook_id: example.webhookId },
    answer: z.strictObject({ webhook_id: z.string(), deleted: z.literal(true) }),
    answerExample: { webhook_id: example.webhookId, deleted: true },
    errors: ['ACCESS_DENIED', 'WEBHOOK_NOT_FOUND'],
  },
  '/webhook/rotate-secret': {
    tag: 'Webhooks',
    summary: "Replace an endpoint's signing secret",
    description: 'Attempts made from now on are signed with the new secret, retries of earlier events included; the answer is the only time it is shown.',
    request: webhookSchemas.webhookIdSchema,
    requestExample: { webhook_id: example.webhookId },
    answer: answers.webhookWithSecret,
    answerExample: { ...webhookExample, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0b1sZ8TjrwQ=' },
    errors: ['ACCESS_DENIED', 'WEBHOOK_NOT_FOUND'],
  },
  '/webhook/deliveries': {
    tag: 'Webhooks',
    summary: "An endpoint's delivery log, newest first",
    description: '`last_error` is a short excerpt (what went wrong, or the first bytes of the answer); `next_attempt_at` is when a pending delivery is tried again. A `cursor` is valid only with the `webhook_id` and `state` it was issued for.',
    request: webhookSchemas.deliveriesSchema,
    requestExample: { webhook_id: example.webhookId, state: 'failed' },
    answer: z.array(answers.webhookDelivery),
    answerExample: [
      {
        delivery_id: `${example.webhookId}.1772618400000-5d1c0a7e9b3f2468`,
        event_id: '49608e1a1b6bd8f1d3a5c0c0d1e2f3a4-0',
        type: 'license.created',
        state: 'pending',
        attempts: 2,
        last_status: 500,
        last_error: 'HTTP 500: upstream unavailable',
        next_attempt_at: '2026-03-04T10:35:05.000Z',
        created_at: example.createdAt,
      },
    ],
    list: true,
    errors: ['ACCESS_DENIED', 'WEBHOOK_NOT_FOUND'],
  },
  '/webhook/redeliver': {
    tag: 'Webhooks',
    summary: 'Send a delivery again now',
    description: 'Queues one more attempt now, whatever the delivery\'s state, with the same `webhook-id`; `/webhook/deliveries` shows its outcome. A disabled endpoint is not sent to (409 `WEBHOOK_DISABLED`).',
    request: webhookSchemas.redeliverSchema,
    requestExample: { delivery_id: `${example.webhookId}.1772618400000-5d1c0a7e9b3f2468` },
    answer: z.strictObject({ delivery_id: z.string(), queued: z.literal(true) }),
    answerExample: { delivery_id: `${example.webhookId}.1772618400000-5d1c0a7e9b3f2468`, queued: true },
    errors: ['ACCESS_DENIED', 'DELIVERY_NOT_FOUND', 'WEBHOOK_DISABLED'],
  },
  '/integration/stripe/set': {
    tag: 'Stripe',
    summary: 'Connect an application to Stripe, or change its connection',
    description:
      'Stores the signing secret of the Stripe webhook endpoint and a restricted key that can read Checkout Sessions, both encrypted, and the price map: each Stripe price id makes licenses of a subscription tier for a duration. The secrets are needed to connect; later a body without them keeps the stored ones. Neither is ever answered: `webhook_secret` in the answer is a hint (its last four characters). Point the endpoint at `webhook_path` (docs/stripe.md).',
    request: integrationSchemas.setSchema,
    requestExample: {
      app_id: example.appId,
      webhook_secret: 'whsec_Jx2kQ9vN4mP7rT1sW8yZ3bC6dF0gH5aL',
      api_key: 'rk_test_51Hx2kQ9vN4mP7rT1sW8yZ3bC6dF0gH5aL',
      prices: stripePrices,
    },
    answer: answers.stripeConnection,
    answerExample: stripeConnectionExample,
    errors: ['ACCESS_DENIED', 'APP_NOT_FOUND', 'SUBSCRIPTION_NOT_FOUND'],
  },
  '/integration/stripe/get': {
    tag: 'Stripe',
    summary: "An application's Stripe connection",
    description: 'The price map and where Stripe sends events; of the signing secret only a hint, never the restricted key. 404 `NOT_FOUND` while the application is not connected.',
    request: integrationSchemas.appIdSchema,
    requestExample: { app_id: example.appId },
    answer: answers.stripeConnection,
    answerExample: stripeConnectionExample,
    errors: ['ACCESS_DENIED', 'APP_NOT_FOUND', 'NOT_FOUND'],
  },
  '/integration/stripe/delete': {
    tag: 'Stripe',
    summary: 'Disconnect an application from Stripe',
    description: "Forgets both secrets and the price map; Stripe's later events are answered 400. Licenses made through Stripe stay.",
    request: integrationSchemas.appIdSchema,
    requestExample: { app_id: example.appId },
    answer: answers.stripeDisconnected,
    answerExample: { app_id: example.appId, deleted: true },
    errors: ['ACCESS_DENIED', 'APP_NOT_FOUND', 'NOT_FOUND'],
  },
  '/integration/stripe/licenses': {
    tag: 'Stripe',
    summary: 'The licenses made for a Checkout Session',
    description:
      "For the owner's success page, through the owner's own backend: the licenses `checkout.session.completed` made for the session, oldest first; an empty list until Stripe's event has arrived (ask again a moment later).",
    request: integrationSchemas.licensesSchema,
    requestExample: { app_id: example.appId, checkout_session: 'cs_test_a1B2c3D4e5F6g7H8' },
    answer: z.array(answers.licenseRecord),
    answerExample: [{ ...licenseExample, tags: ['stripe'], metadata: { stripe_customer: 'cus_Q1w2E3r4T5y6', stripe_checkout_session: 'cs_test_a1B2c3D4e5F6g7H8', email: 'buyer@example.com' } }],
    errors: ['ACCESS_DENIED', 'APP_NOT_FOUND'],
  },
  '/portal/app': {
    tag: 'Customer portal',
    summary: "The portal's branding before sign-in",
    description:
      "What the customer portal shows on its sign-in page: the application's name, the owner's `sender_name` and `support_url`, and which self-service actions are on. Nothing else of the application. An unknown application, an inactive one and one whose portal is off all answer 403 `PORTAL_DISABLED` (docs/portal.md).",
    request: portalSchemas.appSchema,
    requestExample: { app_id: example.appId },
    answer: answers.portalBranding,
    answerExample: { name: 'Acme Tools', sender_name: 'Acme', support_url: 'https://acme.example/help', allow_device_release: true, allow_license_files: true },
    errors: ['PORTAL_DISABLED'],
  },
  '/portal/sign-in': {
    tag: 'Customer portal',
    summary: 'Email a customer a sign-in code',
    description:
      'Always 202 `{success: true}` for a well-formed body while the portal is on, in the same time whether or not the email has licenses: only when licenses of the application carry the email does it send a 6-digit code, valid 10 minutes, that replaces any code sent before. At most 5 sign-ins per email and 30 per source address in any hour, counted whether or not an email went out; over either, 429 `RATE_LIMITED` with `Retry-After` (docs/portal.md#signing-in).',
    request: portalSchemas.signInSchema,
    requestExample: { app_id: example.appId, email: 'buyer@example.com' },
    answer: z.strictObject({}),
    answerExample: {},
    bare: 202,
    errors: ['PORTAL_DISABLED'],
  },
  '/portal/verify': {
    tag: 'Customer portal',
    summary: 'Trade the emailed code for a session',
    description:
      'The right code starts a session of one hour: `token` goes in `Authorization: Bearer` on the routes that take a session. A code works once; a wrong or expired one is 401 `INVALID_CODE`, and the fifth wrong try deletes the code (ask for a new one).',
    request: portalSchemas.verifySchema,
    requestExample: { app_id: example.appId, email: 'buyer@example.com', code: '042917' },
    answer: answers.portalToken,
    answerExample: { token: `lps_${'A1b2C3d4E5'.repeat(4)}x9Z`, expires_at: '2026-03-01T13:00:00.000Z' },
    errors: ['PORTAL_DISABLED', 'INVALID_CODE'],
  },
  '/portal/sign-out': {
    tag: 'Customer portal',
    summary: 'End the session',
    description: 'The session ends at once: its token is refused (401 `INVALID_SESSION`) from the next request on.',
    request: portalSchemas.sessionOnlySchema,
    requestExample: {},
    answer: z.strictObject({}),
    answerExample: {},
    bare: 200,
    session: true,
    errors: [],
  },
  '/portal/licenses': {
    tag: 'Customer portal',
    summary: "The signed-in customer's licenses",
    description:
      "Every license of the session's application that carries the session's email, as the customer sees it: its key, status, end, subscription, features and usage, its devices (each with its floating seat's lease and its live license files), and when a device may be released under the license's reset rules (`release.allowed_now`, `release.next_at`; null when the owner allows no resets), and whether `/portal/billing` opens a billing page for it (`billing`: bought through the application's Stripe connection). Nothing of another email, application or team. 403 `PORTAL_DISABLED` once the owner switched the portal off (docs/portal.md#what-customers-see).",
    request: portalSchemas.sessionOnlySchema,
    requestExample: {},
    answer: z.array(answers.customerLicense),
    answerExample: [
      {
        key: example.key,
        status: 'active',
        expires_at: '2027-03-01T12:00:00.000Z',
        subscription_name: 'Pro',
        features: ['export'],
        usage: [],
        max_devices: 2,
        devices: [{ hwid: 'desk-pc', lease: null, files: [] }],
        release: { allowed_now: true, next_at: '2026-03-01T12:00:00.000Z' },
        billing: true,
      },
    ],
    session: true,
    errors: ['PORTAL_DISABLED'],
  },
  '/portal/release-device': {
    tag: 'Customer portal',
    summary: 'Release a device',
    description:
      "Releases one device of one of the session's licenses as `/reset-hwid` would (its binding, or on a floating license its seat, even a borrowed one), under the license's reset rules, and answers `/reset-hwid`'s 403 codes in the management shape (a cooldown's `data.next_reset_at` with them). A key the session does not reach is 404 `LICENSE_NOT_FOUND`; with releases switched off by the owner, 403 `NOT_ALLOWED` (docs/portal.md#what-customers-see).",
    request: portalSchemas.releaseDeviceSchema,
    requestExample: { license_key: example.key, hwid: 'desk-pc' },
    answer: z.strictObject({}),
    answerExample: {},
    bare: 200,
    session: true,
    errors: ['PORTAL_DISABLED', 'NOT_ALLOWED', 'LICENSE_NOT_FOUND'],
    // /reset-hwid's codes less the blacklists' (nothing is probed: the device is not calling) and LEASE_BORROWED (a borrowed seat is released).
    clientFailures: ['TEAM_ERROR', 'LICENSE_NOT_ACTIVE', 'LICENSE_EXPIRED', 'SUBSCRIPTION_ERROR', 'SUBSCRIPTION_NOT_ACTIVE', 'HWID_RESET_NOT_ALLOWED', 'HWID_NOT_BOUND', 'HWID_RESET_COOLDOWN'],
  },
  '/portal/license-file': {
    tag: 'Customer portal',
    summary: 'A license file from an activation request',
    description:
      "Turns the activation request (`lfr1.…`) an offline computer made for one of the session's licenses into its license file, as `/license-file` does for `{\"request\": …}`: every check and effect of `/auth` (first use, binding, seats), the file `air_gapped` and recorded on the license, and `/license-file`'s 403 codes in the management shape. A request that does not decode, or was made for another license or application: 400 `INVALID_INPUT` naming `request`. A key the session does not reach: 404 `LICENSE_NOT_FOUND`; with license files switched off by the owner, 403 `NOT_ALLOWED` (docs/portal.md#what-customers-can-do).",
    request: portalSchemas.licenseFileSchema,
    requestExample: { license_key: example.key, request: `lfr1.${Buffer.from(JSON.stringify({ app_id: example.appId, license: example.key, hwid: 'desktop-7f3a', nonce: 'a1b2c3d4e5f6a7b8' })).toString('base64url')}` },
    answer: answers.licenseFileData,
    answerExample: { ...authExample, license_file: licenseFileExample },
    session: true,
    errors: ['PORTAL_DISABLED', 'NOT_ALLOWED', 'LICENSE_NOT_FOUND'],
    // /license-file's codes less the blacklists' (nothing is probed: the device is not calling).
    clientFailures: ['TEAM_ERROR', 'LICENSE_NOT_ACTIVE', 'LICENSE_EXPIRED', 'SUBSCRIPTION_ERROR', 'SUBSCRIPTION_NOT_ACTIVE', 'HWID_MISMATCH', 'SEATS_EXHAUSTED', 'DEVICE_ALREADY_REGISTERED_WITH_OTHER_LICENSE'],
  },
  '/portal/billing': {
    tag: 'Customer portal',
    summary: "The license's billing page",
    description:
      "Opens Stripe's customer portal for the Stripe customer who bought one of the session's licenses (the `stripe_customer` its purchase recorded in its metadata), through the application's Stripe connection, and answers its address: the web app sends the customer there, and Stripe sends them back to the portal. A license with no Stripe customer (made otherwise, a guest checkout), or an application no longer connected to Stripe: 404 `NO_BILLING`. Stripe refusing (the restricted key lacks **Customer portal: Write**, or the customer portal is not set up in Stripe): 502 `BILLING_UNAVAILABLE`, and the owner's log says why. A key the session does not reach: 404 `LICENSE_NOT_FOUND` (docs/portal.md#billing).",
    request: portalSchemas.billingSchema,
    requestExample: { license_key: example.key },
    answer: answers.portalBilling,
    answerExample: { url: 'https://billing.stripe.com/p/session/test_YWNjdF8x' },
    session: true,
    errors: ['PORTAL_DISABLED', 'LICENSE_NOT_FOUND', 'NO_BILLING', 'BILLING_UNAVAILABLE'],
  },
};
