import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { invalidSignature, LicenseError } from './errors.js';
import { contentDigest, verifyAnswer, type Expected, type PinnedKey, type SignedAnswer } from './signature.js';

export interface TransportOptions {
  url: string;
  pinned: PinnedKey;
  timeoutMs: number;
}

/** A verified success: the body's `message` and `data`, and the nonce the request sent. */
export interface Answer {
  message: string;
  data: unknown;
  nonce: string;
}

/** The first waits before a retry; later ones repeat the last, all within the call's timeout. */
const backoffMs = [250, 1000, 4000];

const retryable = (status: number) => status === 429 || status >= 500;
const signatureFields = ['content-digest', 'signature-input', 'signature'];

/**
 * POSTs one client-route request and returns its verified success, else throws a
 * LicenseError. The body carries a fresh nonce and the request its
 * `Content-Digest`, so only an answer made by the service for this very request
 * verifies. 429, 5xx and network errors are retried with backoff until
 * `timeoutMs` has passed since the call began, re-sending the same bytes (every
 * client route is safe to repeat); then `NETWORK_ERROR`. An unsigned 429 or 5xx
 * (the gateway's) is retried; a signed one is the service's own and is retried
 * once it verifies, and one that does not verify was altered on the way (a
 * success turned into a 503 to open the offline path): `INVALID_SIGNATURE`.
 */
export async function post(options: TransportOptions, path: string, fields: Record<string, unknown>): Promise<Answer> {
  const nonce = randomBytes(18).toString('base64url');
  const body = JSON.stringify({ ...fields, nonce });
  const requestDigest = contentDigest(body);
  const deadline = Date.now() + options.timeoutMs;
  let lastFailure: unknown;
  for (let attempt = 0; ; attempt += 1) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) break;
    let status: number;
    let headers: Headers;
    let bytes: Uint8Array;
    try {
      const response = await fetch(`${options.url.replace(/\/+$/, '')}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-digest': requestDigest },
        body,
        signal: AbortSignal.timeout(remaining),
      });
      ({ status, headers } = response);
      bytes = new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      lastFailure = error;
      if (!(await backOff(attempt, deadline))) break;
      continue;
    }
    if (retryable(status)) {
      if (signatureFields.some((field) => headers.has(field))) verifyAnswer({ status, headers, body: bytes }, { pinned: options.pinned, nonce, requestDigest });
      lastFailure = new Error(`HTTP ${status}`);
      if (!(await backOff(attempt, deadline, retryAfterMs(headers)))) break;
      continue;
    }
    return acceptAnswer({ status, headers, body: bytes }, { pinned: options.pinned, nonce, requestDigest }, fields);
  }
  throw new LicenseError('NETWORK_ERROR', `no usable answer from the licensing service within ${options.timeoutMs} ms`, { cause: lastFailure });
}

/**
 * An answer the service made for this very request (`fields` are what it asked),
 * as a success, or its refusal as a LicenseError; anything else `INVALID_SIGNATURE`.
 */
export function acceptAnswer(answer: SignedAnswer, expected: Expected, fields: Record<string, unknown>): Answer {
  verifyAnswer(answer, expected);
  return settle(answer.status, answer.body, expected.nonce, fields);
}

function settle(status: number, bytes: Uint8Array, nonce: string, fields: Record<string, unknown>): Answer {
  let parsed: { success?: unknown; message?: unknown; data?: unknown };
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes)) as typeof parsed;
  } catch (error) {
    throw invalidSignature('the signed answer is no JSON', error);
  }
  if (typeof parsed.message !== 'string') throw invalidSignature('the signed answer has no message');
  if (parsed.success !== true || status !== 200) throw new LicenseError(parsed.message, undefined, { data: parsed.data, status });
  // The request digest already ties the answer to this body; this keeps a license's data from ever passing for another's.
  const key = typeof parsed.data === 'object' && parsed.data !== null ? (parsed.data as { key?: unknown }).key : undefined;
  if (typeof fields.license === 'string' && key !== undefined && key !== fields.license) throw invalidSignature('the answer is about another license');
  return { message: parsed.message, data: parsed.data, nonce };
}

/** Waits before the next attempt; false when the wait would end past the deadline. */
async function backOff(attempt: number, deadline: number, askedMs?: number): Promise<boolean> {
  const planned = backoffMs[Math.min(attempt, backoffMs.length - 1)]!;
  // Jitter keeps many programs that lost the service together from coming back in step.
  const wait = askedMs ?? planned * (0.8 + Math.random() * 0.4);
  if (Date.now() + wait >= deadline) return false;
  await sleep(wait);
  return true;
}

function retryAfterMs(headers: Headers): number | undefined {
  const value = headers.get('retry-after')?.trim();
  return value !== undefined && /^\d+$/.test(value) ? Number(value) * 1000 : undefined;
}
