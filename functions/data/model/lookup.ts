/**
 * Lookup entries: items derived from license items so that /license/find and
 * the listing by expiry read an index instead of scanning (docs/management-api.md,
 * "Finding licenses"). A bound-device entry (keys.boundDevice) per HWID a
 * license lists as bound; an expiry entry (keys.licenseByExpiry) per license
 * with an expiry; an email entry (keys.licenseByEmail) per license that
 * carries a customer's email address. The events consumer writes them from
 * each license change on the table's stream, so no request path writes them: a
 * binding /auth and an extension cost what they cost before, and the consumer
 * pays one write unit per entry put or deleted.
 */
export interface EntryChange {
  key: { pk: string; sk: string };
  /** The entry to put; absent: the entry is deleted. */
  item?: Record<string, unknown>;
}

/** The licenses a /license/find answer lists for one HWID at most. */
export const maxLicensesPerDevice = 100;

/** The licenses of one application that one email address reaches at most (licensesWithEmail). */
export const maxLicensesPerEmail = 100;

/** The data step `npm start` and `admin migrate lookup-entries` run once for licenses from before these entries. */
export const lookupMigration = 'lookup-entries';

/** Bound devices of a license item: `hwids` where it has it, else its one `hwid` (items from before seats). */
export function boundDevicesOf(license: Record<string, unknown>): string[] {
  if (Array.isArray(license.hwids)) return license.hwids.filter((hwid): hwid is string => typeof hwid === 'string');
  return typeof license.hwid === 'string' ? [license.hwid] : [];
}
