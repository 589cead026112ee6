import type { Deps } from '#core/deps';
import { notFound } from '#core/domain/ownership';
import type { License } from '#data/model/license';
import { licenseRecord } from '#core/domain/license-view';
import type { OwnerInput } from '#core/http/handler';
import type { updateStatusSchema } from './schemas';
import * as licenses from '#data/license.repo';

/** One conditional write: a missing license and another owner's fail the same condition. */
export async function setStatusOwned(deps: Deps, teamId: string, licenseKey: string, status: License['status']): Promise<License> {
  const license = await licenses.updateFields(deps.table, licenseKey, teamId, { status }, {}, deps.appScope);
  if (!license) throw notFound.license();
  return license;
}

export async function updateStatus(deps: Deps, input: OwnerInput<typeof updateStatusSchema>) {
  return licenseRecord(deps, await setStatusOwned(deps, input.teamId, input.license_key, input.status));
}
