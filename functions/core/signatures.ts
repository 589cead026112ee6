import { createHash, sign, type KeyObject } from 'node:crypto';
import { parseDictionary, serializeDictionary, serializeInnerList, serializeItem, type InnerList, type Parameters } from 'structured-headers';

/**
 * RFC 9421 HTTP Message Signatures over an RFC 9530 Content-Digest, as
 * extensions.md section 1 signs every client answer. Structured fields are
 * read and written by `structured-headers`, never by hand.
 */

/** A component of the signature base: its identifier (`"@status"`, `"content-digest"`) and its value. */
export type Component = [name: string, value: string];

export interface SignatureParams {
  created: number;
  keyid: string;
  alg?: string;
  nonce?: string;
}

/** The covered components and their parameters, as `Signature-Input` carries them (RFC 9421 section 2.3). */
export function signatureParams(names: readonly string[], params: SignatureParams): InnerList {
  const parameters: Parameters = new Map();
  parameters.set('created', params.created);
  parameters.set('keyid', params.keyid);
  if (params.alg !== undefined) parameters.set('alg', params.alg);
  if (params.nonce !== undefined) parameters.set('nonce', params.nonce);
  return [names.map((name) => [name, new Map()]), parameters];
}

/** RFC 9421 section 2.5: one line per component, then `"@signature-params"`, no trailing newline. */
export function signatureBase(components: readonly Component[], params: InnerList): string {
  const lines = components.map(([name, value]) => `${serializeItem([name, new Map()])}: ${value}`);
  lines.push(`"@signature-params": ${serializeInnerList(params)}`);
  return lines.join('\n');
}

/** RFC 9530: `sha-256=:<base64>:` of the body bytes. */
export function contentDigest(body: string | Uint8Array): string {
  return serializeDictionary({ 'sha-256': createHash('sha256').update(body).digest() });
}

export const signatureLabel = 'sig1';
export const answerComponents = ['@status', 'content-digest'] as const;

export interface AnswerToSign {
  status: number;
  body: string;
  keyId: string;
  privateKey: KeyObject;
  created: number;
  nonce: string | undefined;
}

/** The three headers of a signed answer. */
export function answerSignatureHeaders(answer: AnswerToSign): Record<string, string> {
  const digest = contentDigest(answer.body);
  const params = signatureParams(answerComponents, { created: answer.created, keyid: answer.keyId, alg: 'ed25519', nonce: answer.nonce });
  const base = signatureBase(
    [
      ['@status', String(answer.status)],
      ['content-digest', digest],
    ],
    params,
  );
  const signature = sign(null, Buffer.from(base, 'utf8'), answer.privateKey);
  return {
    'Content-Digest': digest,
    'Signature-Input': serializeDictionary(new Map([[signatureLabel, params]])),
    Signature: serializeDictionary({ [signatureLabel]: signature }),
  };
}

/** What extensions.md allows as a nonce: 8 to 128 characters of `A-Z a-z 0-9 . _ ~ + / = -`. */
const noncePattern = /^[A-Za-z0-9._~+/=-]{8,128}$/;

export const isValidNonce = (value: unknown): value is string => typeof value === 'string' && noncePattern.test(value);

/**
 * The `nonce` parameter an `Accept-Signature` header asks for, from its first
 * member that has one; `invalid` when the header is no structured dictionary
 * or the nonce is no string.
 */
export function acceptSignatureNonce(header: string | undefined): string | undefined | 'invalid' {
  if (header === undefined || header.trim() === '') return undefined;
  let dictionary;
  try {
    dictionary = parseDictionary(header);
  } catch {
    return 'invalid';
  }
  for (const [, member] of dictionary) {
    const nonce = member[1].get('nonce');
    if (nonce === undefined) continue;
    return typeof nonce === 'string' ? nonce : 'invalid';
  }
  return undefined;
}

export type NonceVerdict = { kind: 'none' } | { kind: 'valid'; nonce: string } | { kind: 'invalid' };

/** The request's nonce from the body and `Accept-Signature`: both present and different, or malformed, is invalid. */
export function requestNonce(bodyNonce: unknown, acceptSignature: string | undefined): NonceVerdict {
  const fromHeader = acceptSignatureNonce(acceptSignature);
  const bodyAbsent = bodyNonce === undefined || bodyNonce === null;
  if (fromHeader === 'invalid' || (!bodyAbsent && !isValidNonce(bodyNonce))) return { kind: 'invalid' };
  if (fromHeader !== undefined && !isValidNonce(fromHeader)) return { kind: 'invalid' };
  if (!bodyAbsent && fromHeader !== undefined && bodyNonce !== fromHeader) return { kind: 'invalid' };
  const nonce = bodyAbsent ? fromHeader : (bodyNonce as string);
  return nonce === undefined ? { kind: 'none' } : { kind: 'valid', nonce };
}
