import { createHash, sign, timingSafeEqual, type KeyObject } from 'node:crypto';
import { parseDictionary, serializeDictionary, serializeInnerList, serializeItem, type InnerList, type Item, type Parameters } from 'structured-headers';

/**
 * RFC 9421 HTTP Message Signatures over an RFC 9530 Content-Digest, as
 * docs/client-api.md, "Signed answers and offline tokens" describes for every client answer. Structured fields are
 * read and written by `structured-headers`, never by hand.
 */

/**
 * A component identifier (RFC 9421 section 2): a bare name such as `"@status"`,
 * or a name with parameters such as `"content-digest";req` (section 2.4).
 */
export type ComponentId = string | Item;

/** A component of the signature base: its identifier and its value. */
export type Component = [id: ComponentId, value: string];

const componentItem = (id: ComponentId): Item => (typeof id === 'string' ? [id, new Map()] : id);

export interface SignatureParams {
  created: number;
  keyid: string;
  alg?: string;
  nonce?: string;
}

/** The covered components and their parameters, as `Signature-Input` carries them (RFC 9421 section 2.3). */
export function signatureParams(names: readonly ComponentId[], params: SignatureParams): InnerList {
  const parameters: Parameters = new Map();
  parameters.set('created', params.created);
  parameters.set('keyid', params.keyid);
  if (params.alg !== undefined) parameters.set('alg', params.alg);
  if (params.nonce !== undefined) parameters.set('nonce', params.nonce);
  return [names.map(componentItem), parameters];
}

/** RFC 9421 section 2.5: one line per component, then `"@signature-params"`, no trailing newline. */
export function signatureBase(components: readonly Component[], params: InnerList): string {
  const lines = components.map(([id, value]) => `${serializeItem(componentItem(id))}: ${value}`);
  lines.push(`"@signature-params": ${serializeInnerList(params)}`);
  return lines.join('\n');
}

/** RFC 9530: `sha-256=:<base64>:` of the body bytes. */
export function contentDigest(body: string | Uint8Array): string {
  return serializeDictionary({ 'sha-256': createHash('sha256').update(body).digest() });
}

export const signatureLabel = 'sig1';

/** The request's Content-Digest as a component of the answer's signature (RFC 9421 section 2.4). */
export const requestDigestComponent: Item = ['content-digest', new Map([['req', true]])];

export interface AnswerToSign {
  status: number;
  body: string;
  keyId: string;
  privateKey: KeyObject;
  created: number;
  nonce: string | undefined;
  /** The request's Content-Digest field as received, once it matched the request body. */
  requestDigest: string | undefined;
}

/**
 * The three headers of a signed answer. With the request's digest the
 * signature also covers `"content-digest";req`, so the answer verifies only
 * against the request it was made for.
 */
export function answerSignatureHeaders(answer: AnswerToSign): Record<string, string> {
  const digest = contentDigest(answer.body);
  const components: Component[] = [
    ['@status', String(answer.status)],
    ['content-digest', digest],
    ...(answer.requestDigest === undefined ? [] : [[requestDigestComponent, answer.requestDigest] as Component]),
  ];
  const params = signatureParams(
    components.map(([id]) => id),
    { created: answer.created, keyid: answer.keyId, alg: 'ed25519', nonce: answer.nonce },
  );
  const base = signatureBase(components, params);
  const signature = sign(null, Buffer.from(base, 'utf8'), answer.privateKey);
  return {
    'Content-Digest': digest,
    'Signature-Input': serializeDictionary(new Map([[signatureLabel, params]])),
    Signature: serializeDictionary({ [signatureLabel]: signature }),
  };
}

/** What docs/verifying-answers.md allows as a nonce: 8 to 128 characters of `A-Z a-z 0-9 . _ ~ + / = -`. */
export const noncePattern = /^[A-Za-z0-9._~+/=-]{8,128}$/;

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

/** The digest algorithms of RFC 9530 a request may use, by their names in the field. */
const digestAlgorithms = new Map([
  ['sha-256', 'sha256'],
  ['sha-512', 'sha512'],
]);

export type DigestVerdict = { kind: 'none' } | { kind: 'valid'; value: string } | { kind: 'invalid' };

/**
 * A request's Content-Digest (RFC 9530) against its body bytes: every sha-256
 * and sha-512 member must be a byte sequence equal to the body's digest
 * (compared in constant time); other algorithms are ignored, but at least one
 * known one must be there. A field that is no structured dictionary is invalid.
 * `value` is the field as the answer's signature covers it (RFC 9421 section 2.1).
 */
export function requestContentDigest(header: string | undefined, body: Uint8Array): DigestVerdict {
  if (header === undefined) return { kind: 'none' };
  let dictionary;
  try {
    dictionary = parseDictionary(header);
  } catch {
    return { kind: 'invalid' };
  }
  let known = 0;
  for (const [name, member] of dictionary) {
    const algorithm = digestAlgorithms.get(name);
    if (algorithm === undefined) continue;
    const sent = member[0];
    if (!(sent instanceof ArrayBuffer)) return { kind: 'invalid' };
    const actual = createHash(algorithm).update(body).digest();
    if (sent.byteLength !== actual.length || !timingSafeEqual(new Uint8Array(sent), actual)) return { kind: 'invalid' };
    known += 1;
  }
  return known === 0 ? { kind: 'invalid' } : { kind: 'valid', value: header.trim() };
}
