import type { Deps } from '#core/deps';
import { ManagementError } from '#core/errors';
import { managementView } from '#core/license-view';
import type { License } from '#data/license.repo';

/** HWID routes answer with the license as it stands after the change; a deleted subscription shows as null. */
export async function licenseResponse(deps: Deps, license: License) {
  return managementView(license, await deps.repos.subscriptions.get(license.subscription_id));
}

/** Two attempts lost to concurrent writers: the caller may simply send the request again. */
export const concurrentChange = () =>
  new ManagementError(409, 'CONFLICT', 'The license was changed by another request at the same time; try again');
