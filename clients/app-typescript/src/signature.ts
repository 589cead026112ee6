import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { invalidSignature } from './errors.js';

/** The application's public key as `/app/signing-key` gives it in `jwk`. */
export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid?: string;
  [member: string]: unknown;
}

export interface PinnedKey {
  key: KeyObject;
  /** RFC 7638 thumbprint of the key: the `keyid` every answer must name. */
  keyId: string;
  jwk: { kty: 'OKP'; crv: 'Ed25519'; x: string };
}

/** The pinned key from a PEM (SPKI) string or a JWK; anything but an Ed25519 public key is a TypeError at construction. */
export function pinKey(publicKey: string | PublicJwk): PinnedKey {
  let key: KeyObject;
  try {
    key = typeof publicKey === 'string' ? createPublicKey(publicKey) : createPublicKey({ key: { kty: publicKey.kty, crv: publicKey.crv, x: publicKey.x }, format: 'jwk' });
  } catch (error) {
    throw new TypeError('publicKey is neither a PEM public key nor a JWK', { cause: error });
  }
  if (key.type !== 'public' || key.asymmetricKeyType !== 'ed25519') throw new TypeError('publicKey is no Ed25519 public key');
  const { x } = key.export({ format: 'jwk' });
  if (typeof x !== 'string') throw new TypeError('publicKey has no x');
  // RFC 7638: the required members in lexicographic order, no white space.
  const keyId = createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest('base64url');
  if (typeof publicKey !== 'string' && publicKey.kid !== undefined && publicKey.kid !== keyId) throw new TypeError('the JWK kid is not the thumbprint of its key');
  return { key, keyId, jwk: { kty: 'OKP', crv: 'Ed25519', x } };
}

/** RFC 9530 `Content-Digest` (sha-256) of a body, serialised as RFC 8941 writes a one-member dictionary. */
export const contentDigest = (body: Uint8Array | string) => `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;

export interface SignedAnswer {
  status: number;
  headers: Headers;
  body: Uint8Array;
}

export interface Expected {
  pinned: PinnedKey;
  nonce: string;
  /** The `Content-Digest` this request sent: the signature must cover it as `"content-digest";req`. */
  requestDigest: string;
}

const components = '("@status" "content-digest" "content-digest";req)';
const base64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Throws `INVALID_SIGNATURE` unless the answer is signed by the pinned key, over
 * this body and status, for this request's digest and nonce. `created` is not
 * held against the client's clock: an answer carrying this call's fresh random
 * nonce was made after the call began, and a user whose clock is wrong must not
 * be locked out by it.
 *
 * The header fields are not parsed: the service serialises them as RFC 8941
 * does, which gives one text for one value, so each field is required to be
 * exactly the text of what this request must get back, with only `created` and
 * the signature's bytes unknown. Anything else, an extra member or parameter
 * included, is refused. That needs no structured-field parser as a dependency
 * (the package depends on `jose` and Node alone) and refuses more than a parser
 * would accept.
 */
export function verifyAnswer(answer: SignedAnswer, expected: Expected): void {
  const { headers } = answer;
  const digest = headers.get('content-digest');
  const input = headers.get('signature-input');
  const signature = headers.get('signature');
  if (digest === null || input === null || signature === null) throw invalidSignature('the answer is not signed');
  if (digest !== contentDigest(answer.body)) throw invalidSignature('the body does not match Content-Digest');

  const paramsAfterCreated = `;keyid="${expected.pinned.keyId}";alg="ed25519";nonce="${expected.nonce}"`;
  const head = `sig1=${components};created=`;
  const created = input.startsWith(head) && input.endsWith(paramsAfterCreated) ? input.slice(head.length, input.length - paramsAfterCreated.length) : '';
  if (!/^[0-9]{1,12}$/.test(created)) throw invalidSignature('Signature-Input is not for this request, nonce and key');

  const encoded = signature.startsWith('sig1=:') && signature.endsWith(':') ? signature.slice('sig1=:'.length, -1) : '';
  if (!base64.test(encoded) || encoded.length === 0) throw invalidSignature('Signature holds no sig1');

  // RFC 9421 section 2.5: one line per component, then the parameters, no newline at the end.
  const base = [
    `"@status": ${answer.status}`,
    `"content-digest": ${digest}`,
    `"content-digest";req: ${expected.requestDigest}`,
    `"@signature-params": ${components};created=${created}${paramsAfterCreated}`,
  ].join('\n');
  if (!verify(null, Buffer.from(base), expected.pinned.key, Buffer.from(encoded, 'base64'))) throw invalidSignature('the signature does not verify');
}
