import { hkdfSync } from 'node:crypto';
import { badClientRequest, clientMessages } from '#core/http/errors';
import { loadJose } from '#core/signing/jose';
import type { App } from '#data/model/app';
import { borrowSecondsLimits } from '#data/model/lease';
import { licenseFileSecondsLimits, liveFiles, type FileWrite } from '#data/model/license-file';
import type { License } from '#data/model/license';

/** What a /license-file asks beyond a check: the file's lifetime, and whether it was made from an activation request. */
export interface FileAsk {
  lifetimeSeconds: number | undefined;
  airGapped: boolean;
}

/**
 * Files a license keeps at most (live ones, each device's latest): bounds what its item
 * carries when a license without `hwid_lock` hands files to any number of devices. A file
 * dropped for room stays valid until its `exp` but can no longer be returned.
 */
const maxFilesPerLicense = 50;

const maxFileSeconds = (app: App) => app.max_license_file_seconds ?? licenseFileSecondsLimits.defaultMax;
const maxBorrowSeconds = (app: App) => app.max_borrow_seconds ?? borrowSecondsLimits.defaultMax;

/** A lifetime longer than the application allows: 400 `Invalid license file request`, checked once the application is read. */
export function checkFileLifetime(ask: FileAsk, app: App): void {
  if (ask.lifetimeSeconds !== undefined && ask.lifetimeSeconds > maxFileSeconds(app)) throw badClientRequest(clientMessages.invalidLicenseFileRequest);
}

/**
 * The file's lifetime: the one asked, or the application's longest. On a floating license the
 * file borrows the seat for it, so it is bounded by the longest borrow too: a lifetime asked
 * beyond that is the same 400.
 */
export function fileLifetime(ask: FileAsk, app: App, floating: boolean): number {
  if (!floating) return ask.lifetimeSeconds ?? maxFileSeconds(app);
  const longest = Math.min(maxFileSeconds(app), maxBorrowSeconds(app));
  if (ask.lifetimeSeconds !== undefined && ask.lifetimeSeconds > longest) throw badClientRequest(clientMessages.invalidLicenseFileRequest);
  return ask.lifetimeSeconds ?? longest;
}

/**
 * The file this check records, and the entries its write drops: ended files, this device's
 * earlier one (its latest file is the one it uses and returns), and the oldest beyond
 * `maxFilesPerLicense`. `end` is the license's end or grace end (milliseconds); the file's
 * times are whole seconds, as its claims are.
 */
export function fileFor(license: License, made: { jti: string; hwid: string; now: Date; seconds: number; airGapped: boolean; end: number }): FileWrite {
  const iat = Math.floor(made.now.getTime() / 1000);
  const exp = Math.min(iat + made.seconds, Math.floor(made.end / 1000));
  const live = liveFiles(license, made.now);
  const kept = live.filter((file) => file.hwid !== made.hwid);
  const overflow = kept.slice(0, Math.max(0, kept.length - (maxFilesPerLicense - 1))).map((file) => file.jti);
  const keptJtis = new Set(kept.map((file) => file.jti).filter((jti) => !overflow.includes(jti)));
  return {
    jti: made.jti,
    file: { hwid: made.hwid, issued_at: new Date(iat * 1000).toISOString(), expires_at: new Date(exp * 1000).toISOString(), air_gapped: made.airGapped },
    dropped: Object.keys(license.files ?? {}).filter((jti) => !keptJtis.has(jti)),
  };
}

/** The key of an encrypted file: HKDF-SHA256 of the license key, salted with the HWID, info "license-file", 32 bytes. */
const fileKey = (license: string, hwid: string) => new Uint8Array(hkdfSync('sha256', Buffer.from(license, 'utf8'), Buffer.from(hwid, 'utf8'), Buffer.from('license-file', 'utf8'), 32));

/** A compact JWE (`dir`, `A256GCM`, `cty: license+jwt`) of the signed file: readable only with the license key on that device. */
export async function encryptedFile(jws: string, license: string, hwid: string): Promise<string> {
  const { CompactEncrypt } = await loadJose();
  return new CompactEncrypt(new TextEncoder().encode(jws)).setProtectedHeader({ alg: 'dir', enc: 'A256GCM', cty: 'license+jwt' }).encrypt(fileKey(license, hwid));
}

