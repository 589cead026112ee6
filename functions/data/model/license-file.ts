import * as z from 'zod/mini';
import { ownEntry } from '#shared/own-keys';

/**
 * License files (docs/licensing-models.md, "License files and air-gapped devices"). A license keeps
 * each device's latest file where /auth already writes, on the license item:
 * `files` maps the file's `jti` to its device, its times and whether it was
 * made from an activation request. A file whose end has passed is dropped by
 * the next file's write; a returned one at once.
 */
export interface LicenseFileEntry {
  hwid: string;
  /** ISO times: made at, valid until (the file's `exp`). */
  issued_at: string;
  expires_at: string;
  air_gapped: boolean;
}

/** As the item stores an entry: seconds since the epoch, as the file's own `iat` and `exp` are. */
export const storedFileSchema = z.lazy(() => z.object({ hwid: z.string(), iat: z.number(), exp: z.number(), air_gapped: z.boolean() }));
export type StoredFile = z.infer<typeof storedFileSchema>;

export function storedFile(file: LicenseFileEntry): StoredFile {
  return { hwid: file.hwid, iat: Date.parse(file.issued_at) / 1000, exp: Date.parse(file.expires_at) / 1000, air_gapped: file.air_gapped };
}

export function fileOf(stored: StoredFile): LicenseFileEntry {
  return { hwid: stored.hwid, issued_at: new Date(stored.iat * 1000).toISOString(), expires_at: new Date(stored.exp * 1000).toISOString(), air_gapped: stored.air_gapped };
}

/** Maps keyed by `jti` are null-prototype objects: a `jti` comes back in a return code a client wrote. */
export function fileMap(entries: Iterable<[string, LicenseFileEntry]>): Record<string, LicenseFileEntry> {
  return Object.assign(Object.create(null) as Record<string, LicenseFileEntry>, Object.fromEntries(entries));
}

export function filesOf(stored: Record<string, StoredFile>): Record<string, LicenseFileEntry> {
  return fileMap(Object.entries(stored).map(([jti, file]) => [jti, fileOf(file)]));
}

/**
 * `lifetime_seconds` of a file: 3,600 s to the application's `max_license_file_seconds`
 * (default 30 days, at most 10 years).
 */
export const licenseFileSecondsLimits = { min: 3600, defaultMax: 30 * 86400, max: 315_360_000 } as const;

/** What the file rules read of a license. */
export interface FileHolder {
  files?: Record<string, LicenseFileEntry>;
}

/** The file of this `jti`, if the license keeps one: the `jti` may be named like anything every object inherits. */
export function fileOfJti(license: FileHolder, jti: string): LicenseFileEntry | undefined {
  return ownEntry(license.files, jti);
}

/** The license's files less one (a null-prototype map, keyed by `jti`). */
export function filesWithout(license: FileHolder, jti: string): Record<string, LicenseFileEntry> {
  return fileMap(Object.entries(license.files ?? {}).filter(([kept]) => kept !== jti));
}

export interface LiveFile extends LicenseFileEntry {
  jti: string;
}

/** The files valid now, oldest first. */
export function liveFiles(license: FileHolder, now: Date): LiveFile[] {
  return Object.entries(license.files ?? {})
    .filter(([, file]) => Date.parse(file.expires_at) > now.getTime())
    .map(([jti, file]) => ({ jti, ...file }))
    .sort((a, b) => Date.parse(a.issued_at) - Date.parse(b.issued_at));
}

/** What a /license-file write records of the new file and drops of the old ones (client/license-file.ts). */
export interface FileWrite {
  jti: string;
  file: LicenseFileEntry;
  /** Entries as read that the write drops: ended ones, and this device's earlier file. */
  dropped: string[];
}
