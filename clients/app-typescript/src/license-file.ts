import { hkdfSync } from 'node:crypto';
import { invalidSignature, LicenseError } from './errors.js';
import { namesLicenseAndDevice, type OfflineTokenClaims } from './offline-token.js';
import type { PinnedKey } from './signature.js';
import type { LicenseData } from './types.js';

/** The claims of a license file: an offline token's, plus the license data and how the file was made. */
export interface LicenseFileClaims extends OfflineTokenClaims {
  /** What a successful check would answer for this device. */
  data: LicenseData;
  /** True when the file was made from an activation request. */
  air_gapped: boolean;
}

/** The license and device a file is opened for: an encrypted file's key is made from both. */
export interface FileDevice {
  license: string;
  hwid: string;
}

export interface FileExpectations extends FileDevice {
  appId: string;
  /** The nonce the file must carry: its request's, for a file fetched online or made from a kept activation request. */
  nonce?: string | undefined;
  /** Seconds since the epoch to judge `nbf` and `exp` by; a file that came with its request's nonce is fresh and is not judged by a clock that may be wrong. */
  now?: number;
}

// jose is an ES module; importing it on first use keeps the CommonJS build loadable by require() on every Node 20.
const jose = () => import('jose');

/** The service's `iat` may be a little ahead of a computer's clock that is right: `nbf` (= `iat`) gets this leeway, `exp` none. */
const nbfLeewaySeconds = 60;

export const mismatch = (detail: string, cause?: unknown) => new LicenseError('LICENSE_FILE_MISMATCH', detail, cause === undefined ? {} : { cause });

/** The key of an encrypted file: HKDF-SHA256 of the license key, salted with the HWID, so only that key on that device reads it. */
export const fileKey = ({ license, hwid }: FileDevice): Uint8Array =>
  new Uint8Array(hkdfSync('sha256', Buffer.from(license, 'utf8'), Buffer.from(hwid, 'utf8'), Buffer.from('license-file', 'utf8'), 32));

/**
 * The claims of a license file, a compact JWS or a compact JWE holding one,
 * once decrypted with the key of this license and device and verified with
 * the pinned key: `LICENSE_FILE_MISMATCH` for a text that is no license file
 * or a JWE that does not decrypt (made for another license or device, or
 * altered), `INVALID_SIGNATURE` for a signature that does not verify. The
 * claims themselves are judged by `checkClaims`.
 */
export async function openLicenseFile(text: string, pinned: PinnedKey, device: FileDevice): Promise<LicenseFileClaims> {
  const { compactDecrypt, compactVerify, decodeProtectedHeader, importJWK } = await jose();
  const compact = text.trim();
  let jws: string;
  const parts = compact.split('.').length;
  if (parts === 5) {
    try {
      const { plaintext, protectedHeader } = await compactDecrypt(compact, fileKey(device), { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] });
      if (protectedHeader.cty !== 'license+jwt') throw new TypeError(`the JWE holds ${String(protectedHeader.cty)}, not a license file`);
      jws = new TextDecoder('utf-8', { fatal: true }).decode(plaintext);
    } catch (error) {
      throw mismatch('the encrypted license file does not decrypt with this license key and device', error);
    }
  } else if (parts === 3) {
    jws = compact;
  } else {
    throw mismatch('the text is no license file');
  }
  let kid: unknown;
  try {
    kid = decodeProtectedHeader(jws).kid;
  } catch (error) {
    throw mismatch('the text is no license file', error);
  }
  if (kid !== pinned.keyId) throw invalidSignature('the license file is signed with another key');
  let verified: Awaited<ReturnType<typeof compactVerify>>;
  try {
    verified = await compactVerify(jws, await importJWK(pinned.jwk, 'EdDSA'), { algorithms: ['EdDSA'] });
  } catch (error) {
    throw invalidSignature('the license file does not verify', error);
  }
  // Checked once the signature holds, so an offline token or another signed document passed as a file is a mismatch, not a forgery.
  if (verified.protectedHeader.typ !== 'license+jwt') throw mismatch(`the signed text is a ${String(verified.protectedHeader.typ)}, not a license file`);
  let claims: unknown;
  try {
    claims = JSON.parse(new TextDecoder().decode(verified.payload));
  } catch (error) {
    throw mismatch('the license file holds no claims', error);
  }
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) throw mismatch('the license file holds no claims');
  return claims as LicenseFileClaims;
}

/**
 * The claims when the file is for this application, license and device (and
 * request, when a nonce is expected) and holds its license data (else
 * `LICENSE_FILE_MISMATCH`), and, when judged by a clock, is within `nbf`
 * (`LICENSE_FILE_MISMATCH`: not valid yet) and `exp` (`LICENSE_FILE_EXPIRED`).
 */
export function checkClaims(claims: LicenseFileClaims, expected: FileExpectations): LicenseFileClaims {
  if (claims.iss !== expected.appId) throw mismatch('the license file is for another application');
  if (claims.sub !== expected.license) throw mismatch('the license file is for another license');
  if (!namesLicenseAndDevice(claims, expected)) throw mismatch('the license file is for another device');
  if (typeof claims.data !== 'object' || claims.data === null || claims.data.key !== claims.sub) throw mismatch('the license file holds no license data of its license');
  if (typeof claims.jti !== 'string' || ![claims.iat, claims.nbf, claims.exp].every((time) => typeof time === 'number' && Number.isFinite(time))) {
    throw mismatch('the license file lacks its jti, iat, nbf or exp');
  }
  if (expected.nonce !== undefined && claims.nonce !== expected.nonce) throw mismatch('the license file was made for another request');
  if (expected.now !== undefined) {
    if (expected.now + nbfLeewaySeconds < claims.nbf) throw mismatch(`the license file is valid from ${new Date(claims.nbf * 1000).toISOString()} only`);
    if (expected.now >= claims.exp) {
      throw new LicenseError('LICENSE_FILE_EXPIRED', 'the license file has expired', { data: { expired_at: new Date(claims.exp * 1000).toISOString() } });
    }
  }
  return claims;
}

/** The unverified `sub` of a signed (not encrypted) file: which license a file is about, for a check by username. */
export async function peekLicense(text: string): Promise<string | undefined> {
  const { decodeJwt } = await jose();
  try {
    const { sub } = decodeJwt(text.trim());
    return typeof sub === 'string' ? sub : undefined;
  } catch {
    return undefined;
  }
}

/** `<prefix>` and the base64url (no padding) of the fields' UTF-8 JSON: the activation request (`lfr1.`) and the return code (`lfx1.`). */
export const encodeCode = (prefix: 'lfr1.' | 'lfx1.', fields: Record<string, unknown>) => `${prefix}${Buffer.from(JSON.stringify(fields), 'utf8').toString('base64url')}`;
