import { isSesIdentity, type LogLevel, type ViewerHeader } from '../functions/core/config';

export type EndpointType = 'edge' | 'regional';

/** What serves the client routes besides the REST API: nothing more (`rest`), or an HTTP API too (`http`). */
export type ClientApi = 'rest' | 'http';

/**
 * What an owner sets on a deployment: the props of `LicensingService`, and the CDK context keys of
 * this repository's own stack (`-c key=value`, or the `context` block of cdk.json), under the same
 * names. docs/configuration.md ("Stack settings") lists each with its default and allowed values.
 */
export interface LicensingServiceProps {
  /**
   * Names the API Gateway stage, the API, the event bus and the usage plan (and this repository's
   * stack, `Licensing-<stage>`): 1 to 64 letters, digits or "-".
   * @default 'prod'
   */
  readonly stage?: string;
  /** @default 'edge' */
  readonly endpointType?: EndpointType;
  /**
   * `http` adds an API Gateway HTTP API serving every client route, at less than a third of the REST
   * API's price per request, beside the REST API, which keeps serving them too. An HTTP API takes no
   * web ACL, so with it the client function trusts no CloudFront viewer header, and it is not traced
   * (docs/deployment.md, "Two front doors for client routes").
   * @default 'rest'
   */
  readonly clientApi?: ClientApi;
  /**
   * Set with a regional endpoint behind the owner's own CloudFront, which adds it as the
   * `x-origin-verify` header: a web ACL then refuses every request without it, and the
   * country and ASN headers become trustworthy.
   */
  readonly cloudFrontOriginSecret?: string;
  /**
   * Requests per second (steady, burst) allowed on each client route of the stage: one
   * budget shared by every owner and application of the stage.
   * @default 100
   */
  readonly clientRateLimit?: number;
  /** @default 200 */
  readonly clientBurstLimit?: number;
  /**
   * Stage throttle of POST /stripe/webhook/{app_id}, which has no API key and so no usage plan: requests per
   * second over all applications (Stripe sends an event at a time per endpoint). @default 25
   */
  readonly stripeWebhookRateLimit?: number;
  /** @default 50 */
  readonly stripeWebhookBurstLimit?: number;
  /** Per-owner usage plan throttle on management routes. @default 100 */
  readonly managementRateLimit?: number;
  /** @default 500 */
  readonly managementBurstLimit?: number;
  /** Management requests per owner per day; 0 means no quota. @default 0 */
  readonly managementQuotaPerDay?: number;
  /** How long API Gateway caches the authorizer's verdict for one x-api-key value. @default 300 */
  readonly authorizerCacheTtlSeconds?: number;
  /** @default 10 */
  readonly bcryptCost?: number;
  /** @default 'info' */
  readonly logLevel?: LogLevel;
  /** @default 5 */
  readonly cacheTtlSeconds?: number;
  /** @default false */
  readonly debug?: boolean;
  /** @default 512 */
  readonly lambdaMemoryMb?: number;
  /** Retention of every log group the service makes: the functions', the API's access logs, the dashboard deployment's. @default 30 */
  readonly logRetentionDays?: number;
  /**
   * Retention of API Gateway's execution log group (errors of the stage), which API Gateway
   * creates itself and would keep forever.
   * @default 30
   */
  readonly executionLogRetentionDays?: number;
  /** @default false */
  readonly enableWaf?: boolean;
  /** WAF counts requests per IP over a 5-minute window. @default 1000 */
  readonly wafRateLimitPerIp?: number;
  /** The same, counting only the client routes. @default 300 */
  readonly wafClientRateLimitPerIp?: number;
  /** Reserved concurrency (0: none) of the authorizer, the client function and each management function. @default 0 */
  readonly authorizerReservedConcurrency?: number;
  /** @default 0 */
  readonly clientReservedConcurrency?: number;
  /** @default 0 */
  readonly managementReservedConcurrency?: number;
  readonly alarmEmail?: string;
  /** X-Ray active tracing on every function and on the API stage. @default true */
  readonly tracing?: boolean;
  /**
   * With tracing on, the share of API requests X-Ray records (0 to 1): the stack's sampling rule for
   * the stage, with no per-second reservoir, so a million requests record this many million traces.
   * API Gateway decides and the functions follow its decision. @default 0.001
   */
  readonly tracingSampleRate?: number;
  /** The owners' dashboard: a private S3 bucket behind CloudFront. @default true */
  readonly dashboard?: boolean;
  /**
   * `Access-Control-Allow-Origin` of the management routes: `*` or one origin.
   * @default the dashboard's CloudFront origin when the dashboard is deployed, else '*'
   */
  readonly managementCorsOrigin?: string;
  /** Days audit items are kept (their TTL). @default 90 */
  readonly auditRetentionDays?: number;
  /**
   * The Amazon SES identity the service sends email from (customer portal sign-in codes, a Stripe
   * buyer's keys): a domain (mail from `no-reply@<domain>`) or one address, verified in SES in the
   * stack's region. Only the functions that send may send, and only from it. Unset: no email, and
   * the customer portal cannot be switched on.
   */
  readonly sesIdentity?: string;
}

/** Every setting resolved: defaults applied, values checked. */
export type Settings = { -readonly [K in Exclude<keyof LicensingServiceProps, Unset>]-?: NonNullable<LicensingServiceProps[K]> } & {
  -readonly [K in Unset]: LicensingServiceProps[K] | undefined;
};

/** The settings whose default is to be left unset. */
type Unset = 'cloudFrontOriginSecret' | 'alarmEmail' | 'managementCorsOrigin' | 'sesIdentity';

export type ContextReader = (key: keyof LicensingServiceProps) => unknown;

/** How an error names a setting: `context stage` for the CDK context, `LicensingService prop stage` for a prop. */
type Describe = (key: keyof LicensingServiceProps) => string;

interface Source {
  get: ContextReader;
  describe: Describe;
}

export class SettingsError extends Error {}

/** Retention periods CloudWatch Logs accepts. */
const retentionDays = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];

// `-c key=value` always yields a string; cdk.json may hold numbers and booleans.
function text(source: Source, key: keyof LicensingServiceProps): string | undefined {
  const raw = source.get(key);
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
  throw new SettingsError(`${source.describe(key)} must be a string, number or boolean`);
}

function integer(source: Source, key: keyof LicensingServiceProps, fallback: number, min: number, max: number): number {
  const raw = text(source, key);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new SettingsError(`${source.describe(key)} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function flag(source: Source, key: keyof LicensingServiceProps, fallback: boolean): boolean {
  const raw = text(source, key)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new SettingsError(`${source.describe(key)} must be true or false, got "${raw}"`);
}

/** A decimal from `min` to `max`, as the X-Ray sampling rule's fixed rate takes it. */
function fraction(source: Source, key: keyof LicensingServiceProps, fallback: number, min: number, max: number): number {
  const raw = text(source, key);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d*\.?\d+$/.test(raw) || !(value >= min && value <= max)) {
    throw new SettingsError(`${source.describe(key)} must be a number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function oneOf<T extends string>(source: Source, key: keyof LicensingServiceProps, allowed: readonly T[], fallback: T): T {
  const raw = text(source, key);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new SettingsError(`${source.describe(key)} must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function retention(source: Source, key: keyof LicensingServiceProps, fallback: number): number {
  const days = integer(source, key, fallback, 1, 3653);
  if (!retentionDays.includes(days)) throw new SettingsError(`${source.describe(key)} must be one of ${retentionDays.join(', ')}, got "${days}"`);
  return days;
}

function isOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return ['http:', 'https:'].includes(url.protocol) && url.origin === text;
  } catch {
    return false;
  }
}

/** Reads and checks the CDK context of this repository's stack; errors name `context <key>`. */
export function readSettings(get: ContextReader): Settings {
  return resolveSettings({ get, describe: (key) => `context ${key}` });
}

/** Checks a `LicensingService`'s props against the same rules as the context; errors name the prop. */
export function settingsFromProps(props: LicensingServiceProps): Settings {
  return resolveSettings({ get: (key) => props[key], describe: (key) => `LicensingService prop ${key}` });
}

function resolveSettings(source: Source): Settings {
  const name = source.describe;
  const stage = text(source, 'stage') ?? 'prod';
  // The stage names the stack too (Licensing-<stage>), and CloudFormation stack names allow no "_".
  if (!/^[A-Za-z0-9-]{1,64}$/.test(stage)) {
    throw new SettingsError(`${name('stage')} must be 1 to 64 letters, digits or "-" (it names the stage, the API, the event bus and this repository's stack Licensing-<stage>), got "${stage}"`);
  }
  const endpointType = oneOf<EndpointType>(source, 'endpointType', ['edge', 'regional'], 'edge');
  const clientApi = oneOf<ClientApi>(source, 'clientApi', ['rest', 'http'], 'rest');
  const cloudFrontOriginSecret = text(source, 'cloudFrontOriginSecret');
  if (cloudFrontOriginSecret !== undefined) {
    if (!/^[A-Za-z0-9_-]{32,256}$/.test(cloudFrontOriginSecret)) {
      throw new SettingsError(`${name('cloudFrontOriginSecret')} must be 32 to 256 letters, digits, "-" or "_"`);
    }
    if (endpointType !== 'regional') {
      throw new SettingsError(`${name('cloudFrontOriginSecret')} needs endpointType=regional: an edge endpoint has API Gateway's own distribution in front`);
    }
    if (clientApi === 'http') {
      throw new SettingsError(
        `${name('cloudFrontOriginSecret')} cannot be combined with clientApi=http: an HTTP API takes no web ACL, so requests sent straight to it would pass without the secret and with any country or ASN`,
      );
    }
  }
  const managementCorsOrigin = text(source, 'managementCorsOrigin');
  if (managementCorsOrigin !== undefined && managementCorsOrigin !== '*' && !isOrigin(managementCorsOrigin)) {
    throw new SettingsError(`${name('managementCorsOrigin')} must be * or an origin such as https://admin.example.com (no path, no trailing slash), got "${managementCorsOrigin}"`);
  }
  const alarmEmail = text(source, 'alarmEmail');
  if (alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+$/.test(alarmEmail)) {
    throw new SettingsError(`${name('alarmEmail')} must be an email address, got "${alarmEmail}"`);
  }
  const sesIdentity = text(source, 'sesIdentity');
  if (sesIdentity !== undefined && !isSesIdentity(sesIdentity)) {
    throw new SettingsError(`${name('sesIdentity')} must be a domain such as example.com or an address such as licenses@example.com (an SES identity), got "${sesIdentity}"`);
  }
  return {
    stage,
    endpointType,
    clientApi,
    cloudFrontOriginSecret,
    clientRateLimit: integer(source, 'clientRateLimit', 100, 1, 10000),
    clientBurstLimit: integer(source, 'clientBurstLimit', 200, 1, 5000),
    stripeWebhookRateLimit: integer(source, 'stripeWebhookRateLimit', 25, 1, 10000),
    stripeWebhookBurstLimit: integer(source, 'stripeWebhookBurstLimit', 50, 1, 5000),
    managementRateLimit: integer(source, 'managementRateLimit', 100, 1, 10000),
    managementBurstLimit: integer(source, 'managementBurstLimit', 500, 1, 5000),
    managementQuotaPerDay: integer(source, 'managementQuotaPerDay', 0, 0, 1_000_000_000),
    authorizerCacheTtlSeconds: integer(source, 'authorizerCacheTtlSeconds', 300, 0, 3600),
    bcryptCost: integer(source, 'bcryptCost', 10, 4, 15),
    logLevel: oneOf(source, 'logLevel', ['debug', 'info', 'warn', 'error', 'silent'], 'info'),
    cacheTtlSeconds: integer(source, 'cacheTtlSeconds', 5, 0, 300),
    debug: flag(source, 'debug', false),
    lambdaMemoryMb: integer(source, 'lambdaMemoryMb', 512, 128, 10240),
    logRetentionDays: retention(source, 'logRetentionDays', 30),
    executionLogRetentionDays: retention(source, 'executionLogRetentionDays', 30),
    enableWaf: flag(source, 'enableWaf', false),
    wafRateLimitPerIp: integer(source, 'wafRateLimitPerIp', 1000, 10, 2_000_000_000),
    wafClientRateLimitPerIp: integer(source, 'wafClientRateLimitPerIp', 300, 10, 2_000_000_000),
    authorizerReservedConcurrency: integer(source, 'authorizerReservedConcurrency', 0, 0, 10000),
    clientReservedConcurrency: integer(source, 'clientReservedConcurrency', 0, 0, 10000),
    managementReservedConcurrency: integer(source, 'managementReservedConcurrency', 0, 0, 10000),
    alarmEmail,
    tracing: flag(source, 'tracing', true),
    tracingSampleRate: fraction(source, 'tracingSampleRate', 0.001, 0, 1),
    dashboard: flag(source, 'dashboard', true),
    managementCorsOrigin,
    auditRetentionDays: integer(source, 'auditRetentionDays', 90, 1, 3650),
    sesIdentity,
  };
}

/**
 * The viewer headers only a CloudFront in front of every request can vouch for: API
 * Gateway's own edge distribution adds the country (not the ASN) and cannot be
 * bypassed; an owner's distribution adds both once the origin secret shuts the
 * direct way in. A regional endpoint without it trusts neither, and neither does a
 * stack with the HTTP API: anyone may call it directly with any header, and one
 * client function serves both APIs, so a blacklisted country would just use that door.
 */
export function trustedViewerHeaders(settings: Pick<Settings, 'endpointType' | 'cloudFrontOriginSecret' | 'clientApi'>): ViewerHeader[] {
  if (settings.clientApi === 'http') return [];
  if (settings.endpointType === 'edge') return ['country'];
  return settings.cloudFrontOriginSecret === undefined ? [] : ['country', 'asn'];
}
