import type { LogLevel } from '../functions/core/config';

export type EndpointType = 'edge' | 'regional';

/**
 * Per-environment settings of a deployment, read from CDK context (`-c key=value`
 * on the command line, or the `context` block of cdk.json). This is the only
 * place the stack reads context, so the README's deploy guide can list every key.
 */
export interface Settings {
  /** API Gateway stage name; also part of the stack name, so stages can share an account. */
  stage: string;
  endpointType: EndpointType;
  /** Requests per second (steady, burst) allowed on each client route of the stage. */
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
  logRetentionDays: number;
  enableWaf: boolean;
  /** WAF counts requests per IP over a 5-minute window. */
  wafRateLimitPerIp: number;
  alarmEmail: string | undefined;
  /** X-Ray active tracing on every function and on the API stage. */
  tracing: boolean;
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

export function readSettings(get: ContextReader): Settings {
  const stage = text(get, 'stage') ?? 'prod';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(stage)) {
    throw new SettingsError(`context stage must be 1 to 64 letters, digits, "-" or "_", got "${stage}"`);
  }
  const logRetentionDays = integer(get, 'logRetentionDays', 30, 1, 3653);
  if (!retentionDays.includes(logRetentionDays)) {
    throw new SettingsError(`context logRetentionDays must be one of ${retentionDays.join(', ')}, got "${logRetentionDays}"`);
  }
  const alarmEmail = text(get, 'alarmEmail');
  if (alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+$/.test(alarmEmail)) {
    throw new SettingsError(`context alarmEmail must be an email address, got "${alarmEmail}"`);
  }
  return {
    stage,
    endpointType: oneOf(get, 'endpointType', ['edge', 'regional'], 'edge'),
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
    logRetentionDays,
    enableWaf: flag(get, 'enableWaf', false),
    wafRateLimitPerIp: integer(get, 'wafRateLimitPerIp', 1000, 10, 2_000_000_000),
    alarmEmail,
    tracing: flag(get, 'tracing', true),
  };
}
