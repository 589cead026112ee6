import type { Deps } from '#core/deps';
import { notFound, ownedLicense } from '#core/domain/ownership';
import type { HwidSettings, License, LicenseFlag } from '#data/model/license';
import { concurrentChange } from '#core/http/errors';
import { licenseRecord } from '#core/domain/license-view';
import * as licenses from '#data/license.repo';

/**
 * Sets a flag to an explicit value, or flips it. A flip is conditional on the
 * value it read, so two concurrent flips are two flips, never one applied twice
 * over the same reading; a flip lost to a concurrent writer is re-read and retried once.
 */
export async function setOrFlipFlag(deps: Deps, teamId: string, licenseKey: string, flag: LicenseFlag, explicit: boolean | undefined) {
  if (explicit !== undefined) return licenseRecord(deps, await updateOwned(deps, teamId, licenseKey, { [flag]: explicit }));
  for (let attempt = 1; attempt <= 2; attempt++) {
    const license = await ownedLicense(deps, teamId, licenseKey);
    const updated = await licenses.flip(deps.table, license, flag);
    if (updated) return licenseRecord(deps, updated);
  }
  throw concurrentChange();
}

/** The team condition of the update is the ownership check: another owner's license answers like a missing one. */
export async function updateOwned(deps: Deps, teamId: string, licenseKey: string, fields: Partial<HwidSettings>): Promise<License> {
  const updated = await licenses.updateFields(deps.table, licenseKey, teamId, fields, {}, deps.appScope);
  if (!updated) throw notFound.license();
  return updated;
}
