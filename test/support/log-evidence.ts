import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { LogSink } from '#core/logger';
import { ownEntry } from '#shared/own-keys';
import { evidenceEnabled, recordEvidence } from './evidence';

/**
 * What the after-run log scan (test/after-run/log-scan.test.ts) reads: every
 * line a test's logger wrote, and every secret value the tests sent or stored,
 * so it can tell whether any line of the whole run names one.
 */
export interface LoggedLine {
  file: string;
  line: string;
}

export type SecretKind = 'license key' | 'username' | 'hwid' | 'password' | 'bcrypt hash' | 'private key' | 'api key' | 'stripe secret' | 'email' | 'portal code' | 'portal token';

export interface SecretValue {
  kind: SecretKind;
  value: string;
}

export const logLinesEvidence = 'log-lines';
export const secretsEvidence = 'secrets';

/** Field names (in request bodies, headers and items, and update placeholders without their `:`) whose values are secrets. */
const secretFields: Record<string, SecretKind> = {
  key: 'license key',
  license: 'license key',
  license_key: 'license key',
  license_keys: 'license key',
  username: 'username',
  new_username: 'username',
  hwid: 'hwid',
  hwids: 'hwid',
  new_hwid: 'hwid',
  password: 'password',
  new_password: 'password',
  password_hash: 'bcrypt hash',
  hash: 'bcrypt hash',
  private_key_ciphertext: 'private key',
  'x-api-key': 'api key',
  // An owner's Stripe connection (/integration/stripe/set) and how it is stored.
  webhook_secret: 'stripe secret',
  api_key: 'stripe secret',
  webhook_secret_ciphertext: 'stripe secret',
  api_key_ciphertext: 'stripe secret',
  // A customer's address: on licenses and their lookup entries, in bodies, and in a Checkout Session's customer details.
  email: 'email',
  customer_email: 'email',
  // The customer portal: the emailed sign-in code and the session's token.
  code: 'portal code',
  token: 'portal token',
  authorization: 'portal token',
};

const testFile = (): string => {
  const state = (globalThis as { expect?: { getState?: () => { testPath?: string } } }).expect?.getState?.();
  return state?.testPath?.replace(`${process.cwd()}/`, '') ?? 'unknown';
};

/** A sink that keeps a test's lines for its own assertions and records them for the scan. */
export function recordingSink(lines: string[]): LogSink {
  return (line) => {
    lines.push(line);
    recordEvidence(logLinesEvidence, { file: testFile(), line } satisfies LoggedLine);
  };
}

/** A worker records each value once, however many requests carry it. */
const recorded = new Set<string>();

function recordSecret(kind: SecretKind, value: string) {
  const id = `${kind}\u0000${value}`;
  if (recorded.has(id)) return;
  recorded.add(id);
  recordEvidence(secretsEvidence, { kind, value } satisfies SecretValue);
}

/** Every string under `value`: plain JSON, or DynamoDB's `{S: ...}`/`{L: [...]}`/`SS` shapes. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value instanceof Set) return [...value].flatMap(stringsIn);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(stringsIn);
  return [];
}

/** Records the values of secret fields anywhere in `value`, at any depth. */
export function recordSecretsIn(value: unknown): void {
  if (!evidenceEnabled() || typeof value !== 'object' || value === null) return;
  if (Array.isArray(value) || value instanceof Set) {
    for (const entry of value) recordSecretsIn(entry);
    return;
  }
  for (const [name, entry] of Object.entries(value)) {
    // Field names come from bodies and items, where a map key may be named like what every object inherits (`constructor`).
    const kind = ownEntry(secretFields, name.replace(/^:/, '').replace(/\d+$/, '').toLowerCase());
    if (kind) for (const text of stringsIn(entry)) recordSecret(kind, text);
    else recordSecretsIn(entry);
  }
}

/** Records the secrets of every item the tests write to or read from the table, whichever route or fixture wrote it. */
export function recordTableSecrets(client: DynamoDBClient): void {
  if (!evidenceEnabled()) return;
  client.middlewareStack.add(
    (next) => async (args) => {
      recordSecretsIn(args.input);
      const result = await next(args);
      recordSecretsIn(result.output);
      return result;
    },
    { step: 'initialize', name: 'recordTableSecrets' },
  );
}

export interface Leak {
  file: string;
  line: string;
  kind: string;
}

/**
 * Values shorter than this are not looked for: test HWIDs such as `d1` or a
 * three-letter username also occur inside ids, timestamps and words, so they
 * would flag innocent lines, while a credential worth leaking is longer.
 */
export const shortestCheckedSecret = 6;

/** Secrets recognisable by their shape alone, whether or not a test recorded them. */
const shapes: { kind: string; pattern: RegExp }[] = [
  { kind: 'bcrypt hash', pattern: /\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}/ },
  { kind: 'PEM private key', pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----/ },
  { kind: 'JWK private key (d)', pattern: /\\*"d\\*"\s*:\s*\\*"[A-Za-z0-9_-]{20,}/ },
  { kind: 'Stripe signing secret or restricted key', pattern: /\b(?:whsec|rk_test|rk_live|sk_test|sk_live)_[A-Za-z0-9+/=]{12,}/ },
  { kind: 'portal session token', pattern: /lps_[A-Za-z0-9]{43}/ },
  { kind: 'license-key-shaped string', pattern: /(?<![0-9A-Z])[0-9A-HJKMNP-TV-Z]{5}(?:-[0-9A-HJKMNP-TV-Z]{5}){4}(?![0-9A-Z])/ },
];

const alphanumeric = /[A-Za-z0-9]/;

/**
 * Whether `value` occurs in `line` as a whole: not inside a longer run of
 * letters and digits, so the test HWID `reset-a` is not found in the route
 * name `toggle-reset-allowed`, while a key quoted in `LIC#<key>` or `"<key>"` is.
 */
function occursIn(line: string, value: string): boolean {
  for (let at = line.indexOf(value); at !== -1; at = line.indexOf(value, at + 1)) {
    const before = line[at - 1] ?? '';
    const after = line[at + value.length] ?? '';
    const boundedBefore = !alphanumeric.test(value[0]!) || !alphanumeric.test(before);
    const boundedAfter = !alphanumeric.test(value.at(-1)!) || !alphanumeric.test(after);
    if (boundedBefore && boundedAfter) return true;
  }
  return false;
}

/** The lines that name a recorded secret or carry a secret's shape, each with the kind of secret. */
export function findLeaks(lines: LoggedLine[], secrets: SecretValue[]): Leak[] {
  const checked = secrets.filter((secret) => secret.value.length >= shortestCheckedSecret);
  const leaks: Leak[] = [];
  for (const { file, line } of lines) {
    // A line is JSON: a secret with a quote or backslash in it appears escaped.
    const found = checked.find((secret) => occursIn(line, secret.value) || occursIn(line, JSON.stringify(secret.value).slice(1, -1)));
    if (found) leaks.push({ file, line, kind: found.kind });
    else {
      const shaped = shapes.find((shape) => shape.pattern.test(line));
      if (shaped) leaks.push({ file, line, kind: shaped.kind });
    }
  }
  return leaks;
}
