/**
 * The one typed reader of the environment. Nothing else reads process.env, so
 * every setting the service honours is listed here (and in docs/configuration.md's table).
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** Viewer facts CloudFront adds as `CloudFront-Viewer-Country` and `CloudFront-Viewer-ASN`. */
export type ViewerHeader = 'country' | 'asn';

export interface Config {
  /** DynamoDB table holding every entity. */
  tableName: string;
  region: string;
  /** A store other than the region's DynamoDB; locally it replaces the embedded DynamoDB Local. Unset on AWS. */
  dynamodbEndpoint: string | undefined;
  /** Adds `debug_error` (and `debug_type` on /register) to 500 bodies. Never on in production. */
  debug: boolean;
  logLevel: LogLevel;
  bcryptCost: number;
  /** How long app, team and subscription items are cached in a warm Lambda (licenses and blacklists never are). 0 turns caching off. */
  cacheTtlSeconds: number;
  /** Seconds a bulk route may go on starting work after its request arrived (docs/management-api.md#time-budget-of-bulk-routes). */
  bulkWorkSeconds: number;
  /** X-Ray subsegments for DynamoDB calls; the stack sets it on Lambdas with active tracing. Off locally and in tests. */
  tracing: boolean;
  /**
   * The CloudFront viewer headers the country and ASN blacklists may believe. Anyone can send
   * them; they are only true when every request passes a CloudFront that sets them, so the
   * stack lists them only then. Headers not listed are ignored.
   */
  trustedViewerHeaders: readonly ViewerHeader[];
  /** Days an audit item is kept (its TTL) after its event. */
  auditRetentionDays: number;
  /** The EventBridge bus events go to (the events function, on AWS). */
  eventBusName: string | undefined;
  /** The SQS queue events EventBridge kept refusing are sent to (the events function, on AWS). */
  eventsDeadLetterQueueUrl: string | undefined;
  /** The SQS queue of webhook deliveries (the webhook group's redeliveries and the delivery function, on AWS). */
  webhookQueueUrl: string | undefined;
  /** The stack's KMS key that encrypts applications' private signing keys; unset locally. */
  signingKmsKeyId: string | undefined;
  /** A KMS other than the region's: the benchmark's local stub. Unset on AWS. */
  kmsEndpoint: string | undefined;
  /** Signature headers on client answers. Only the benchmark turns it off, to measure what signing costs. */
  signAnswers: boolean;
  /**
   * `Access-Control-Allow-Origin` of the management routes: `*` or one origin (the deployed
   * dashboard's, set by the stack). Client routes always answer `*` (docs/client-api.md).
   */
  managementCorsOrigin: string;
  /** Where the `stripe` package sends its API calls (a test's or a local stand-in); unset: Stripe's own API. */
  stripeApiUrl: URL | undefined;
  /**
   * The verified Amazon SES identity email is sent from (a domain, or one address), set by the stack
   * on the functions that send and on the app function (which refuses to switch the portal on without
   * it); unset locally, where an outbox takes the mail.
   */
  sesIdentity: string | undefined;
  /** The From address: the identity itself when it is an address, `no-reply@<domain>` when it is a domain. */
  mailFromAddress: string | undefined;
  /** The customer portal's address, which emails link to (set by the stack; locally the server's `/portal/`). */
  portalUrl: string | undefined;
}

export interface LocalConfig {
  port: number;
  dynamodbPort: number;
  dataDir: string;
  /** Per-owner management throttle of the local server, mirroring the usage plan. */
  rateLimit: { enabled: boolean; ratePerSecond: number; burst: number };
  /** Per-application throttle of /auth and /register on the local server (same on/off switch). */
  clientRateLimit: { ratePerSecond: number; burst: number };
  /** Per-application throttle of POST /stripe/webhook/<app_id> on the local server (same on/off switch). */
  stripeWebhookRateLimit: { ratePerSecond: number; burst: number };
  /** Locally, each event is also POSTed as JSON to this URL (development webhooks). */
  eventsWebhookUrl: string | undefined;
}

type Env = Record<string, string | undefined>;

export class ConfigError extends Error {}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

const logLevels: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];
const viewerHeaders: readonly ViewerHeader[] = ['country', 'asn'];

function viewerHeaderList(env: Env, name: string): ViewerHeader[] {
  const listed = (env[name] ?? '').split(',').map((entry) => entry.trim().toLowerCase()).filter((entry) => entry !== '');
  const unknown = listed.filter((entry) => !(viewerHeaders as readonly string[]).includes(entry));
  if (unknown.length > 0) throw new ConfigError(`${name} must list ${viewerHeaders.join(', ')} (comma-separated) or be empty, got "${env[name]}"`);
  return viewerHeaders.filter((header) => listed.includes(header));
}

function webhookUrl(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!URL.canParse(raw) || !['http:', 'https:'].includes(new URL(raw).protocol)) throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  return raw;
}

/** An http(s) URL with nothing after the origin: what the `stripe` package can be pointed at (protocol, host, port). */
function apiOrigin(env: Env, name: string): URL | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.pathname !== '/' || url.search !== '' || url.username !== '') {
    throw new ConfigError(`${name} must be an http(s) URL of a host and port only, such as http://127.0.0.1:12111, got "${raw}"`);
  }
  return url;
}

/** `*`, or one origin exactly as a browser sends it in `Origin`: scheme, host and port, no path. */
function corsOrigin(env: Env, name: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '*') return '*';
  let parsed: URL | undefined;
  try {
    parsed = new URL(raw);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== raw) {
    throw new ConfigError(`${name} must be * or an origin such as https://d111111abcdef8.cloudfront.net (no path, no trailing slash), got "${raw}"`);
  }
  return raw;
}

/** A domain (`example.com`) or one address (`licenses@example.com`), as SES verifies identities; the stack's setting is held to it too. */
export function isSesIdentity(text: string): boolean {
  return text.length <= 254 && /^([^@\s"<>,]+@)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/i.test(text);
}

function sesIdentity(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!isSesIdentity(raw)) {
    throw new ConfigError(`${name} must be an SES identity: a domain such as example.com or an address such as licenses@example.com, got "${raw}"`);
  }
  return raw;
}

function fromAddressOf(identity: string): string {
  return identity.includes('@') ? identity : `no-reply@${identity}`;
}

function portalUrl(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!URL.canParse(raw) || !['http:', 'https:'].includes(new URL(raw).protocol)) throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  return raw.endsWith('/') ? raw : `${raw}/`;
}

export function readConfig(env: Env = process.env): Config {
  const logLevel = (env.LOG_LEVEL ?? 'info').toLowerCase() as LogLevel;
  if (!logLevels.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${logLevels.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  const identity = sesIdentity(env, 'SES_IDENTITY');
  return {
    tableName: env.TABLE_NAME || 'licensing',
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    dynamodbEndpoint: env.DYNAMODB_ENDPOINT || undefined,
    debug: flag(env, 'DEBUG', false),
    logLevel,
    bcryptCost: integer(env, 'BCRYPT_COST', 10, 4, 15),
    cacheTtlSeconds: integer(env, 'CACHE_TTL_SECONDS', 5, 0, 300),
    bulkWorkSeconds: integer(env, 'BULK_WORK_SECONDS', 15, 1, 20),
    tracing: flag(env, 'TRACING', false),
    trustedViewerHeaders: viewerHeaderList(env, 'TRUSTED_VIEWER_HEADERS'),
    auditRetentionDays: integer(env, 'AUDIT_RETENTION_DAYS', 90, 1, 3650),
    eventBusName: env.EVENT_BUS_NAME || undefined,
    eventsDeadLetterQueueUrl: env.EVENTS_DLQ_URL || undefined,
    webhookQueueUrl: env.WEBHOOK_QUEUE_URL || undefined,
    signingKmsKeyId: env.SIGNING_KMS_KEY_ID || undefined,
    kmsEndpoint: env.KMS_ENDPOINT || undefined,
    signAnswers: flag(env, 'SIGN_ANSWERS', true),
    managementCorsOrigin: corsOrigin(env, 'MANAGEMENT_CORS_ORIGIN'),
    stripeApiUrl: apiOrigin(env, 'STRIPE_API_URL'),
    sesIdentity: identity,
    mailFromAddress: identity === undefined ? undefined : fromAddressOf(identity),
    portalUrl: portalUrl(env, 'PORTAL_URL'),
  };
}

export function readLocalConfig(env: Env = process.env): LocalConfig {
  const rateLimit = env.RATE_LIMIT?.toLowerCase();
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    dynamodbPort: integer(env, 'DYNAMODB_PORT', 8000, 0, 65535),
    dataDir: env.DATA_DIR || '.data',
    rateLimit: {
      enabled: rateLimit !== 'off',
      ratePerSecond: integer(env, 'RATE_LIMIT_RPS', 100, 1, 100000),
      burst: integer(env, 'RATE_LIMIT_BURST', 500, 1, 100000),
    },
    clientRateLimit: {
      ratePerSecond: integer(env, 'CLIENT_RATE_LIMIT_RPS', 50, 1, 100000),
      burst: integer(env, 'CLIENT_RATE_LIMIT_BURST', 100, 1, 100000),
    },
    stripeWebhookRateLimit: {
      ratePerSecond: integer(env, 'STRIPE_WEBHOOK_RATE_LIMIT_RPS', 25, 1, 100000),
      burst: integer(env, 'STRIPE_WEBHOOK_RATE_LIMIT_BURST', 50, 1, 100000),
    },
    eventsWebhookUrl: webhookUrl(env, 'EVENTS_WEBHOOK_URL'),
  };
}
