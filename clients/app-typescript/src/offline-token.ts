import { readFile, rm } from 'node:fs/promises';
import { invalidSignature, LicenseError } from './errors.js';
import type { PinnedKey } from './signature.js';
import { replaceFile } from './state.js';

/** The claims of an offline token (docs/verifying-answers.md#offline-tokens). */
export interface OfflineTokenClaims {
  /** The application's id. */
  iss: string;
  /** The license key. */
  sub: string;
  hwid: string | null;
  hwids: string[];
  subscription_name: string;
  subscription_level: number;
  /** The license's own expiry. */
  expires_at: string | null;
  features?: string[];
  iat: number;
  nbf: number;
  /** Seconds since the epoch after which the token is refused. */
  exp: number;
  jti: string;
  nonce?: string;
  /** Set on the token of a borrowed floating seat: `exp` is the end of the borrow. */
  borrowed?: true;
}

export interface TokenExpectations {
  appId: string;
  license?: string;
  hwid?: string;
  /** The nonce of the request that brought the token, when it is that fresh. */
  nonce?: string;
  /**
   * The time to judge `nbf` and `exp` by, in milliseconds since the epoch (the
   * client's clock, for a stored token). Without it, a token that has just come
   * with its request's nonce is judged at its own `iat`: it is fresh, and the
   * computer's clock being wrong must not refuse it.
   */
  now?: number;
  /** How many seconds `nbf` may be ahead of `now`: a stored token's clock leeway (`exp` gets none). */
  notBeforeLeewaySeconds?: number;
}

// jose is an ES module; importing it when a token is first checked keeps the CommonJS build loadable by require() on every Node 20.
const jose = () => import('jose');

/**
 * The token's claims once its EdDSA signature by the pinned key, `typ`, issuer,
 * `nbf` and `exp` check out, and the nonce when given: `OFFLINE_TOKEN_EXPIRED`
 * past `exp`, `INVALID_SIGNATURE` for anything else.
 */
export async function verifyOfflineToken(token: string, pinned: PinnedKey, expected: TokenExpectations): Promise<OfflineTokenClaims> {
  const { decodeJwt, errors, importJWK, jwtVerify } = await jose();
  let payload: OfflineTokenClaims;
  try {
    const at = expected.now ?? Number(decodeJwt(token).iat) * 1000;
    if (!Number.isFinite(at)) throw new TypeError('the offline token has no iat');
    ({ payload } = await jwtVerify<OfflineTokenClaims>(token, await importJWK(pinned.jwk, 'EdDSA'), {
      algorithms: ['EdDSA'],
      typ: 'JWT',
      issuer: expected.appId,
      requiredClaims: ['sub', 'exp', 'nbf', 'iat'],
      currentDate: new Date(at),
      // jose's tolerance widens exp too: exp is judged again below, without it.
      clockTolerance: expected.notBeforeLeewaySeconds ?? 0,
    }));
  } catch (error) {
    if (error instanceof errors.JWTExpired) throw new LicenseError('OFFLINE_TOKEN_EXPIRED', 'the offline token has expired', { cause: error });
    throw invalidSignature('the offline token does not verify', error);
  }
  if (payload.exp <= Math.floor((expected.now ?? payload.iat * 1000) / 1000)) throw new LicenseError('OFFLINE_TOKEN_EXPIRED', 'the offline token has expired');
  if (expected.nonce !== undefined && payload.nonce !== expected.nonce) throw invalidSignature('the offline token is for another request');
  if (!namesLicenseAndDevice(payload, expected)) throw invalidSignature('the offline token is for another license or device');
  return payload;
}

/**
 * Whether a token is about this license and device. A token of a license
 * without an HWID lock names no device, and any device may use that license.
 */
export function namesLicenseAndDevice(claims: Pick<OfflineTokenClaims, 'sub' | 'hwid' | 'hwids'>, expected: Pick<TokenExpectations, 'license' | 'hwid'>): boolean {
  if (expected.license !== undefined && claims.sub !== expected.license) return false;
  if (expected.hwid === undefined) return true;
  const devices = [claims.hwid, ...(Array.isArray(claims.hwids) ? claims.hwids : [])].filter((device) => device !== null);
  return devices.length === 0 || devices.includes(expected.hwid);
}

/** The stored token's claims without checking them, to tell a token of another license from a bad one. */
export async function peekClaims(token: string): Promise<Partial<OfflineTokenClaims> | undefined> {
  const { decodeJwt } = await jose();
  try {
    return decodeJwt(token) as Partial<OfflineTokenClaims>;
  } catch {
    return undefined;
  }
}

/** What the token file holds: the last token, and the username it was got with (a token names only the license). */
export interface StoredToken {
  token: string;
  username?: string;
}

/** Replaces the token file whole (see replaceFile). */
export const storeToken = (file: string, stored: StoredToken): Promise<void> => replaceFile(file, JSON.stringify(stored));

/** Deletes the stored token; a file already gone is no error. */
export async function forgetToken(file: string): Promise<void> {
  await rm(file, { force: true });
}

/** The stored token; undefined when there is none or the file holds something else. */
export async function loadToken(file: string): Promise<StoredToken | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const stored = JSON.parse(text) as Partial<StoredToken>;
    if (typeof stored.token !== 'string') return undefined;
    return { token: stored.token, ...(typeof stored.username === 'string' ? { username: stored.username } : {}) };
  } catch {
    return undefined;
  }
}
