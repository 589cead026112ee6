import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

const base62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Crockford's base32: no I, L, O, U, so keys survive being read aloud or retyped. */
const base32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Uniform characters from a CSPRNG: bytes beyond the largest multiple of the alphabet are rejected, not folded. */
function randomString(alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

export function newId(): string {
  return randomUUID();
}

export const API_KEY_PREFIX = 'lsk_';

/** `lsk_` + 43 base62 characters: about 256 bits. */
export function newApiKey(): string {
  return API_KEY_PREFIX + randomString(base62, 43);
}

/** The shape of an API key (the admin CLI makes `lsk_` + 43 base62; docs/security.md accepts 40 to 128), bounded so a huge header is never hashed. */
const apiKeyPattern = new RegExp(`^${API_KEY_PREFIX}[A-Za-z0-9]{40,128}$`);

export function isApiKeyFormat(value: string): boolean {
  return apiKeyPattern.test(value);
}

export const PORTAL_TOKEN_PREFIX = 'lps_';

/** A customer portal session's token: `lps_` + 43 base62 characters, about 256 bits. */
export function newPortalToken(): string {
  return PORTAL_TOKEN_PREFIX + randomString(base62, 43);
}

/** A portal session token's shape, checked before it is hashed and looked up. */
export function isPortalTokenFormat(value: string): boolean {
  return /^lps_[A-Za-z0-9]{43}$/.test(value);
}

/** A portal sign-in code: six digits from the CSPRNG. */
export function newSignInCode(): string {
  return randomString('0123456789', 6);
}

/** HMAC-SHA256 of `value` under `key`, hex: a fingerprint only the key's holder can compute from a guess. */
export function hmacHex(key: string, value: string): string {
  return createHmac('sha256', key).update(value, 'utf8').digest('hex');
}

/** A secret an application keeps for good (its portal's, its trials'): 32 bytes from the CSPRNG, base64url. */
export function newAppSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Five groups of five base32 characters: 125 bits from the CSPRNG. */
export function newLicenseKey(): string {
  return groupedKey(randomString(base32, 25));
}

/**
 * A key of newLicenseKey's shape that the same secret and name always give: 125 bits
 * of HMAC-SHA256, so no one without the secret can tell it from a generated key or
 * work it out from the name.
 */
export function namedLicenseKey(secret: string, name: string): string {
  const mac = createHmac('sha256', secret).update(name, 'utf8').digest();
  // 32 characters of 5 bits each: the alphabet takes every 5-bit value, none is folded.
  let bits = 0n;
  for (const byte of mac.subarray(0, 16)) bits = (bits << 8n) | BigInt(byte);
  const characters = Array.from({ length: 25 }, (_, i) => base32[Number((bits >> BigInt(123 - 5 * i)) & 31n)]!);
  return groupedKey(characters.join(''));
}

function groupedKey(characters: string): string {
  return characters.match(/.{5}/g)!.join('-');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Compares secrets (or their hashes) without leaking where they first differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * A UUID (version 8, RFC 9562) that the same names always give: what an owner's
 * `request_id` turns into, so a resent create finds what the first one made.
 */
export function namedUuid(...names: string[]): string {
  const bytes = createHash('sha256').update(names.join('\n'), 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return uuidPattern.test(value);
}

/** UUIDs are case-insensitive; ids are stored in lower case, so an id sent in upper case is read as the stored one. */
export function canonicalUuid(value: string): string {
  return value.toLowerCase();
}
