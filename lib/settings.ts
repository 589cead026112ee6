import type { LogLevel, ViewerHeader } from '../functions/core/config';

export type EndpointType = 'edge' | 'regional';

/**
 * Per-environment settings of a deployment, read from CDK context (`-c key=value`
 * on the command line, or the `context` block of cdk.json). This is the only
 * place the stack reads context, so docs/configuration.md (stack settings) can list every key.
 */
export interface Settings {
  /** API Gateway stage name; also part of the stack name, so stages can share an account. */
  stage: string;
  endpointType: EndpointType;
  /**
   * Set with a regional endpoint behind the owner's own CloudFront, which adds it as the
   * `x-origin-verify` header: a web ACL then refuses every request without it, and the
   * country and ASN headers become trustworthy.
   */
  cloudFrontOriginSecret: string | undefined;
  /**
   * Requests per second (steady, burst) allowed on each client route of the stage: one
   * budget shared by every owner and application of the stage.
   */
  clientRateLimit: number;
  clientBurstLimit: number;
  /** Per-owner usage plan throttle on management routes. */
  managementRateLimit: number;
  managementBurstLimit: number;
  /** Management requests per owner per day; 0 means no quota. */
  managementQuotaPerDay: number;
  /** How long API Gateway caches the authorizer's verdict for one x-api-key value. */
  authorizerCacheTtlSeconds: number;
  bcryptCost: number;
  logLevel: LogLevel;
  cacheTtlSeconds: number;
  debug: boolean;
  lambdaMemoryMb: number;
  /** Retention of every log group the stack makes: the functions', the API's access logs, the dashboard deployment's. */
  logRetentionDays: number;
  /**
   * Retention of API Gateway's execution log group (errors of the stage), which API Gateway
   * creates itself and would keep forever.
   */
  executionLogRetentionDays: number;
  enableWaf: boolean;
  /** WAF counts requests per IP over a 5-minute window. */
  wafRateLimitPerIp: number;
  /** The same, counting only /auth and /register. */
  wafClientRateLimitPerIp: number;
  /** Reserved concurrency (0: none) of the authorizer, the client function and each management function. */
  authorizerReservedConcurrency: number;
  clientReservedConcurrency: number;
  managementReservedConcurrency: number;
  alarmEmail: string | undefined;
  /** X-Ray active tracing on every function and on the API stage. */
  tracing: boolean;
  /** The owners' dashboard: a private S3 bucket behind CloudFront, output as DashboardUrl. */
  dashboard: boolean;
  /**
   * `Access-Control-Allow-Origin` of the management routes: `*` or one origin. Unset: the
   * dashboard's CloudFront origin when the dashboard is deployed, else `*`.
   */
  managementCorsOrigin: string | undefined;
  /** Days audit items are kept (their TTL). */
  auditRetentionDays: number;
}

export type ContextReader = (key: string) => unknown;

export class SettingsError extends Error {}

/** Retention periods CloudWatch Logs accepts. */
const retentionDays = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];

// `-c key=value` always yields a string; cdk.json may hold numbers and booleans.
function text(get: ContextReader, key: string): string | undefined {
  const raw = get(key);
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
  throw new SettingsError(`context ${key} must be a string, number or boolean`);
}

function integer(get: ContextReader, key: string, fallback: number, min: number, max: number): number {
  const raw = text(get, key);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new SettingsError(`context ${key} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function flag(get: ContextReader, key: string, fallback: boolean): boolean {
  const raw = text(get, key)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new SettingsError(`context ${key} must be true or false, got "${raw}"`);
}

function oneOf<T extends string>(get: ContextReader, key: string, allowed: readonly T[], fallback: T): T {
  const raw = text(get, key);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new SettingsError(`context ${key} must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function retention(get: ContextReader, key: string, fallback: number): number {
  const days = integer(get, key, fallback, 1, 3653);
  if (!retentionDays.includes(days)) throw new SettingsError(`context ${key} must be one of ${retentionDays.join(', ')}, got "${days}"`);
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

export function readSettings(get: ContextReader): Settings {
  const stage = text(get, 'stage') ?? 'prod';
  // The stage names the stack too (Licensing-<stage>), and CloudFormation stack names allow no "_".
  if (!/^[A-Za-z0-9-]{1,64}$/.test(stage)) {
    throw new SettingsError(`context stage must be 1 to 64 letters, digits or "-" (it is part of the stack name Licensing-<stage>), got "${stage}"`);
  }
  const endpointType = oneOf<EndpointType>(get, 'endpointType', ['edge', 'regional'], 'edge');
  const cloudFrontOriginSecret = text(get, 'cloudFrontOriginSecret');
  if (cloudFrontOriginSecret !== undefined) {
    if (!/^[A-Za-z0-9_-]{32,256}$/.test(cloudFrontOriginSecret)) {
      throw new SettingsError('context cloudFrontOriginSecret must be 32 to 256 letters, digits, "-" or "_"');
    }
    if (endpointType !== 'regional') {
      throw new SettingsError('context cloudFrontOriginSecret needs endpointType=regional: an edge endpoint has API Gateway\'s own distribution in front');
    }
  }
  const managementCorsOrigin = text(get, 'managementCorsOrigin');
  if (managementCorsOrigin !== undefined && managementCorsOrigin !== '*' && !isOrigin(managementCorsOrigin)) {
    throw new SettingsError(`context managementCorsOrigin must be * or an origin such as https://admin.example.com (no path, no trailing slash), got "${managementCorsOrigin}"`);
  }
  const alarmEmail = text(get, 'alarmEmail');
  if (alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+$/.test(alarmEmail)) {
    throw new SettingsError(`context alarmEmail must be an email address, got "${alarmEmail}"`);
  }
  return {
    stage,
    endpointType,
    cloudFrontOriginSecret,
    clientRateLimit: integer(get, 'clientRateLimit', 100, 1, 10000),
    clientBurstLimit: integer(get, 'clientBurstLimit', 200, 1, 5000),
    managementRateLimit: integer(get, 'managementRateLimit', 100, 1, 10000),
    managementBurstLimit: integer(get, 'managementBurstLimit', 500, 1, 5000),
    managementQuotaPerDay: integer(get, 'managementQuotaPerDay', 0, 0, 1_000_000_000),
    authorizerCacheTtlSeconds: integer(get, 'authorizerCacheTtlSeconds', 300, 0, 3600),
    bcryptCost: integer(get, 'bcryptCost', 10, 4, 15),
    logLevel: oneOf(get, 'logLevel', ['debug', 'info', 'warn', 'error', 'silent'], 'info'),
    cacheTtlSeconds: integer(get, 'cacheTtlSeconds', 5, 0, 300),
    debug: flag(get, 'debug', false),
    lambdaMemoryMb: integer(get, 'lambdaMemoryMb', 512, 128, 10240),
    logRetentionDays: retention(get, 'logRetentionDays', 30),
    executionLogRetentionDays: retention(get, 'executionLogRetentionDays', 30),
    enableWaf: flag(get, 'enableWaf', false),
    wafRateLimitPerIp: integer(get, 'wafRateLimitPerIp', 1000, 10, 2_000_000_000),
    wafClientRateLimitPerIp: integer(get, 'wafClientRateLimitPerIp', 300, 10, 2_000_000_000),
    authorizerReservedConcurrency: integer(get, 'authorizerReservedConcurrency', 0, 0, 10000),
    clientReservedConcurrency: integer(get, 'clientReservedConcurrency', 0, 0, 10000),
    managementReservedConcurrency: integer(get, 'managementReservedConcurrency', 0, 0, 10000),
    alarmEmail,
    tracing: flag(get, 'tracing', true),
    dashboard: flag(get, 'dashboard', true),
    managementCorsOrigin,
    auditRetentionDays: integer(get, 'auditRetentionDays', 90, 1, 3650),
  };
}

/**
 * The viewer headers only a CloudFront in front of every request can vouch for: API
 * Gateway's own edge distribution adds the country (not the ASN) and cannot be
 * bypassed; an owner's distribution adds both once the origin secret shuts the
 * direct way in. A regional endpoint without it trusts neither.
 */
export function trustedViewerHeaders(settings: Pick<Settings, 'endpointType' | 'cloudFrontOriginSecret'>): ViewerHeader[] {
  if (settings.endpointType === 'edge') return ['country'];
  return settings.cloudFrontOriginSecret === undefined ? [] : ['country', 'asn'];
}
