import createClient, { mergeHeaders, type Client, type ClientOptions } from 'openapi-fetch';
import { calculateJwkThumbprint, exportJWK, importJWK, importSPKI, jwtVerify, type JWK, type JWTPayload } from 'jose';
import { parseDictionary, serializeDictionary, serializeInnerList, serializeItem, type InnerList, type Item } from 'structured-headers';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };

/** The typed client: `client.POST('/license/create', { body })`, body and answer typed from docs/openapi.json. */
export type LicensingClient = Client<paths>;

export interface RetryOptions {
  /** Waits before each retry when the answer names none, in milliseconds; how many there are is how many retries. */
  delays?: readonly number[];
  /** The longest wait taken from a `Retry-After`, in milliseconds. */
  maxWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** For `Retry-After` given as an HTTP-date. */
  now?: () => number;
}

export interface LicensingClientOptions extends Omit<ClientOptions, 'baseUrl' | 'fetch'> {
  /** The API's base URL, e.g. the stack's `ApiUrl` output or `http://localhost:3000`. */
  baseUrl: string;
  /** Sent as `x-api-key` on every call; leave it out to send the header per call or to call only the client routes. */
  apiKey?: string;
  fetch?: (request: Request) => Promise<Response>;
  /** Retry policy for 429, 5xx and network errors; `false` sends each request once. */
  retry?: RetryOptions | false;
}

/** The backoff of docs/client-api.md#answers-cors-and-retries (1 s, 4 s, 10 s): three retries. */
export const defaultRetryDelays: readonly number[] = [1000, 4000, 10_000];

const wait = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** `Retry-After` as delay-seconds or an HTTP-date (RFC 9110 section 10.2.3), in milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const retryable = (status: number) => status === 429 || status >= 500;

/**
 * A fetch that retries 429, 5xx and network errors. Every route of this service is
 * safe to repeat (each write is conditional or an idempotent transaction), so any
 * request may be sent again. It is the client's `fetch` rather than a middleware:
 * openapi-fetch calls `fetch` once per call, and a loop around it can re-send a
 * clone of the untouched Request each time, while a middleware would have to
 * replay the request outside openapi-fetch and run the other middlewares again.
 */
export function retryingFetch(fetchOnce: (request: Request) => Promise<Response>, options: RetryOptions = {}): (request: Request) => Promise<Response> {
  const delays = options.delays ?? defaultRetryDelays;
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  const sleep = options.sleep ?? wait;
  const now = options.now ?? Date.now;
  return async (request) => {
    for (let attempt = 0; ; attempt += 1) {
      const fallback = delays[attempt];
      let response: Response;
      try {
        response = await fetchOnce(request.clone());
      } catch (error) {
        if (fallback === undefined || request.signal.aborted) throw error;
        await sleep(fallback);
        continue;
      }
      if (fallback === undefined || !retryable(response.status)) return response;
      const asked = retryAfterMs(response.headers.get('retry-after'), now());
      // The answer is dropped unread: release its connection before waiting.
      await response.body?.cancel();
      await sleep(asked === undefined ? fallback : Math.min(asked, maxWaitMs));
    }
  };
}

export function createLicensingClient(options: LicensingClientOptions): LicensingClient {
  const { baseUrl, apiKey, fetch: fetchOnce = (request) => globalThis.fetch(request), retry, headers, ...rest } = options;
  return createClient<paths>({
    ...rest,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: apiKey === undefined ? headers : mergeHeaders(headers, { 'x-api-key': apiKey }),
    fetch: retry === false ? fetchOnce : retryingFetch(fetchOnce, retry),
  });
}

/**
 * A non-2xx answer: management routes carry `error_code` and `error`
 * (`{error, error_code}`), client routes only `message` (`{success: false, message}`),
 * and answers the gateway makes itself may carry neither.
 */
export class LicensingApiError extends Error {
  override readonly name = 'LicensingApiError';
  readonly status: number;
  /** The management answer's `error_code`, e.g. `LICENSE_NOT_FOUND`; undefined for client routes and gateway answers. */
  readonly errorCode: string | undefined;
  /** The parsed body as answered (text when it was no JSON). */
  readonly body: unknown;

  constructor(status: number, body: unknown) {
    const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const text = [fields.error, fields.message].find((value): value is string => typeof value === 'string');
    super(text ?? `HTTP ${status}`);
    this.status = status;
    this.errorCode = typeof fields.error_code === 'string' ? fields.error_code : undefined;
    this.body = body;
  }
}

/** The answer of a successful call, or a `LicensingApiError`: `const { data } = await unwrap(client.POST(...))`. */
export async function unwrap<Answer extends { data?: unknown; error?: unknown; response: Response }>(call: Promise<Answer>): Promise<NonNullable<Answer['data']>> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) throw new LicensingApiError(response.status, error);
  return data as NonNullable<Answer['data']>;
}

/** An answer whose signature did not check out; a verifying program treats it as a failed authentication. */
export class SignatureError extends Error {
  override readonly name = 'SignatureError';
}

export interface PublicKeyOption {
  /** The `jwk` of `/app/signing-key`. */
  jwk?: JWK;
  /** Or its `public_key_pem`. */
  publicKeyPem?: string;
}

export interface VerifyAnswerOptions extends PublicKeyOption {
  /** The nonce this request sent; the answer must carry it. Without it the answer must carry none. */
  nonce?: string;
  /**
   * The `Content-Digest` header this request sent (see `contentDigest`): the
   * answer's signature must cover it as `"content-digest";req`, so an answer
   * made for another request fails. Without it the answer must not cover one.
   */
  requestDigest?: string;
  /** The license key asked for: a successful answer's `data.key` must be it. */
  licenseKey?: string;
  /** How far `created` may be from now; 300 unless given. */
  maxAgeSeconds?: number;
  now?: () => number;
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  /** The body exactly as received. */
  body: string | Uint8Array;
}

async function publicKey(options: PublicKeyOption): Promise<{ key: CryptoKey; keyId: string }> {
  if (options.jwk) {
    const key = await importJWK(options.jwk, 'EdDSA');
    if (!(key instanceof CryptoKey) || key.algorithm.name !== 'Ed25519') throw new TypeError('jwk is no Ed25519 public key');
    return { key, keyId: await calculateJwkThumbprint(options.jwk) };
  }
  if (options.publicKeyPem) {
    const key = await importSPKI(options.publicKeyPem, 'EdDSA', { extractable: true });
    return { key, keyId: await calculateJwkThumbprint(await exportJWK(key)) };
  }
  throw new TypeError('give jwk or publicKeyPem');
}

const signatureLabel = 'sig1';
const bare = (name: string): Item => [name, new Map()];
const requestDigestComponent: Item = ['content-digest', new Map([['req', true]])];

/** RFC 9530 `Content-Digest` (sha-256) of a request body: send it as the header and give it to `verifySignedAnswer` as `requestDigest`. */
export async function contentDigest(body: string | Uint8Array): Promise<string> {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : new Uint8Array(body);
  return serializeDictionary({ 'sha-256': await crypto.subtle.digest('SHA-256', bytes) });
}

function dictionaryMember(headers: Headers, name: string) {
  const value = headers.get(name);
  if (value === null) throw new SignatureError(`no ${name} header: the answer is not signed`);
  try {
    return parseDictionary(value).get(name === 'content-digest' ? 'sha-256' : signatureLabel);
  } catch {
    throw new SignatureError(`${name} is no structured dictionary`);
  }
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, index) => byte === b[index]);

/**
 * Checks a client-route answer (`/auth`, `/register`, `/reset-hwid`, `/release`) as the service
 * signs it: the body against `Content-Digest`, then the RFC 9421 Ed25519 signature
 * over `"@status"`, `"content-digest"` and, when the request sent one, the
 * request's `"content-digest";req`. The signature parameters are rebuilt from what
 * this program expects (the key's own id, its own request digest and nonce) rather
 * than taken from the answer, so an answer signed by another key or for another
 * request fails; with `licenseKey`, so does a success about another license.
 * Returns the parsed body. A `Response` is read through a clone, so this also
 * works in an openapi-fetch `onResponse` middleware.
 */
export async function verifySignedAnswer<Body = unknown>(answer: Response | RawAnswer, options: VerifyAnswerOptions): Promise<Body> {
  if (answer instanceof Response && answer.bodyUsed) throw new TypeError('the answer body was already read: verify in an onResponse middleware or pass {status, headers, body}');
  const { status, headers } = answer;
  const body = answer instanceof Response
    ? new Uint8Array(await answer.clone().arrayBuffer())
    : typeof answer.body === 'string'
      ? new TextEncoder().encode(answer.body)
      : new Uint8Array(answer.body);
  const { key, keyId } = await publicKey(options);

  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', body));
  const sentDigest = dictionaryMember(headers, 'content-digest')?.[0];
  if (!(sentDigest instanceof ArrayBuffer) || !sameBytes(new Uint8Array(sentDigest), digest)) throw new SignatureError('the body does not match Content-Digest');

  const input = dictionaryMember(headers, 'signature-input');
  if (!input || !Array.isArray(input[0])) throw new SignatureError(`Signature-Input has no ${signatureLabel}`);
  const [items, sentParams] = input as InnerList;
  const components = options.requestDigest === undefined ? [bare('@status'), bare('content-digest')] : [bare('@status'), bare('content-digest'), requestDigestComponent];
  if (serializeInnerList([items, new Map()]) !== serializeInnerList([components, new Map()])) throw new SignatureError('the signature covers other components');
  if (sentParams.get('keyid') !== keyId) throw new SignatureError('signed by another key');
  if (sentParams.get('nonce') !== options.nonce) throw new SignatureError('signed for another nonce');
  const created = sentParams.get('created');
  if (typeof created !== 'number' || !Number.isInteger(created)) throw new SignatureError('Signature-Input has no created time');
  const now = (options.now ?? Date.now)() / 1000;
  if (!(Math.abs(now - created) <= (options.maxAgeSeconds ?? 300))) throw new SignatureError('the signature is too old');

  const params: InnerList = [
    components,
    new Map<string, string | number>([['created', created], ['keyid', keyId], ['alg', 'ed25519'], ...(options.nonce === undefined ? [] : [['nonce', options.nonce] as [string, string]])]),
  ];
  // RFC 9421 section 2.5, as the service builds it.
  const base = [
    `${serializeItem(bare('@status'))}: ${status}`,
    `${serializeItem(bare('content-digest'))}: ${serializeDictionary({ 'sha-256': digest })}`,
    ...(options.requestDigest === undefined ? [] : [`${serializeItem(requestDigestComponent)}: ${options.requestDigest}`]),
    `"@signature-params": ${serializeInnerList(params)}`,
  ].join('\n');
  const signature = dictionaryMember(headers, 'signature')?.[0];
  if (!(signature instanceof ArrayBuffer)) throw new SignatureError(`Signature has no ${signatureLabel}`);
  if (!(await crypto.subtle.verify('Ed25519', key, signature, new TextEncoder().encode(base)))) throw new SignatureError('bad signature');
  const parsed = JSON.parse(new TextDecoder().decode(body)) as Body;
  // A genuine answer about another license, such as one a relaying proxy holds, must not pass for this one.
  if (options.licenseKey !== undefined && answersAboutAnotherLicense(parsed, options.licenseKey)) throw new SignatureError('the answer is about another license');
  return parsed;
}

function answersAboutAnotherLicense(answer: unknown, licenseKey: string): boolean {
  const { success, data } = (typeof answer === 'object' && answer !== null ? answer : {}) as { success?: unknown; data?: unknown };
  if (success !== true || typeof data !== 'object' || data === null) return false;
  return (data as { key?: unknown }).key !== licenseKey;
}

export interface VerifyOfflineTokenOptions extends PublicKeyOption {
  /** The application's id: the token's issuer. */
  appId: string;
  /** The nonce the `/auth` request sent; the token must carry it. */
  nonce?: string;
  /** The license key the token must be for (`sub`). */
  licenseKey?: string;
  /** A device the token must name (`hwid` or one of `hwids`). */
  hwid?: string;
  now?: () => number;
}

/** The claims of an offline token. */
export interface OfflineTokenClaims extends JWTPayload {
  iss: string;
  sub: string;
  exp: number;
  hwid: string | null;
  hwids: string[];
  subscription_name: string;
  subscription_level: number;
  expires_at: string | null;
  nonce?: string;
  /** Set on the token of a borrowed floating seat: `exp` is exactly the end of the borrow. */
  borrowed?: true;
}

/** The claims of `data.offline_token`, once its EdDSA signature, issuer, lifetime and the given expectations check out. */
export async function verifyOfflineToken(token: string, options: VerifyOfflineTokenOptions): Promise<OfflineTokenClaims> {
  const { key } = await publicKey(options);
  const { payload } = await jwtVerify<OfflineTokenClaims>(token, key, {
    algorithms: ['EdDSA'],
    typ: 'JWT',
    issuer: options.appId,
    subject: options.licenseKey,
    requiredClaims: ['sub', 'exp', 'iat'],
    currentDate: options.now ? new Date(options.now()) : undefined,
  });
  if (options.nonce !== undefined && payload.nonce !== options.nonce) throw new SignatureError('the offline token is for another request');
  if (options.hwid !== undefined && payload.hwid !== options.hwid && !(Array.isArray(payload.hwids) && payload.hwids.includes(options.hwid))) {
    throw new SignatureError('the offline token is for another device');
  }
  return payload;
}
