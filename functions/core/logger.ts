import type { LogLevel } from './config';
import { sha256Hex } from './ids';

/**
 * Structured JSON logs, one object a line, so CloudWatch Logs Insights can query
 * them. Callers pass fields, never whole request bodies: passwords and API keys
 * must not reach a log line.
 */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * The logger with `fields` on every line it writes: `forRequest` gives each
 * request's deps one that carries the request's `request_id`, so code however
 * deep (an action, a middleware after the handler) logs it without passing it
 * down. Handed down with the deps, not held in an
 * AsyncLocalStorage: that turns on Node's promise hooks for the whole
 * process, which cost every cold start about 2 ms and every promise of every
 * later request a little.
 */
export function withFields(logger: Logger, fields: Record<string, unknown>): Logger {
  return {
    debug: (message, lineFields) => logger.debug(message, { ...fields, ...lineFields }),
    info: (message, lineFields) => logger.info(message, { ...fields, ...lineFields }),
    warn: (message, lineFields) => logger.warn(message, { ...fields, ...lineFields }),
    error: (message, lineFields) => logger.error(message, { ...fields, ...lineFields }),
  };
}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export type LogSink = (line: string) => void;

const stdoutSink: LogSink = (line) => process.stdout.write(`${line}\n`);

/**
 * Field names whose values are end users', customers' or owners' credentials, or name a
 * person or a device: a line that needs one says so by fingerprint. The
 * logger drops such a field wherever it sits, so a careless `{ license }` or
 * a whole item passed at debug level cannot put one on a line.
 */
const secretField = /^(license|license_key|license_keys|key|keys|username|hwid|hwids|new_hwid|email|customer_email|code|token|authorization|api_key|x-api-key|d)$|password|secret|private|hash/i;

const redacted = '[redacted]';

/** Nested values are walked this deep; below it a value is redacted whole rather than trusted. */
const maxDepth = 8;

function withoutSecrets(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null || value instanceof Date) return value;
  if (depth >= maxDepth) return redacted;
  if (Array.isArray(value)) return value.map((entry) => withoutSecrets(entry, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([name, entry]) => [name, secretField.test(name) ? redacted : withoutSecrets(entry, depth + 1)]),
  );
}

export function createLogger(level: LogLevel, base: Record<string, unknown> = {}, sink: LogSink = stdoutSink): Logger {
  const write = (at: Exclude<LogLevel, 'silent'>, message: string, fields?: Record<string, unknown>) => {
    if (rank[at] < rank[level]) return;
    // `level` and an RFC 3339 `timestamp` are what Lambda's log-level filter reads (JSON log format); a line without them counts as INFO.
    sink(JSON.stringify({ level: at, timestamp: new Date().toISOString(), message, ...(withoutSecrets({ ...base, ...fields }, 0) as object) }));
  };
  return {
    debug: (message, fields) => write('debug', message, fields),
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
  };
}

/**
 * A license key as logs may show it: the first 8 hex characters of its SHA-256,
 * enough to tell lines about one license apart, not enough to use or find the key.
 */
export function licenseFingerprint(licenseKey: string): string {
  return sha256Hex(licenseKey).slice(0, 8);
}

/** Any other value a line must correlate by but not show (a username, an HWID, a blacklisted value): the same idea as a license's. */
export const valueFingerprint = licenseFingerprint;

/**
 * An error as a log line's fields. `licenseKeys` are the keys the failed work
 * was about: an error from below may quote one (a key is an end user's
 * credential), so each becomes its fingerprint.
 */
export function describeError(error: unknown, licenseKeys: readonly string[] = []): Record<string, unknown> {
  const scrub = (text: string) => licenseKeys.reduce((scrubbed, key) => scrubbed.replaceAll(key, `license:${licenseFingerprint(key)}`), text);
  if (error instanceof Error) {
    return { error_name: error.name, error_message: scrub(error.message), stack: error.stack && scrub(error.stack) };
  }
  return { error_message: scrub(String(error)) };
}
