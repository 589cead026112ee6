import type { Deps } from '#core/deps';
import { ownedLicense } from '#core/domain/ownership';
import type { OwnerInput } from '#core/http/handler';
import { optimistic } from './optimistic';
import type { licenseKeySchema } from './schemas';
import * as hwids from '#data/hwid.repo';
import * as licenses from '#data/license.repo';
import * as usernames from '#data/username.repo';

/** Deletes a license of this team with the HWID and username index items that point at it. */
export function deleteOwned(deps: Deps, teamId: string, licenseKey: string): Promise<true> {
  return optimistic(async () => {
    const license = await ownedLicense(deps, teamId, licenseKey);
    const [hwidIndex, usernameIndex] = await Promise.all([
      hwids.heldBy(deps.table, license),
      license.username === null ? undefined : usernames.get(deps.table, license.app_id, license.username),
    ]);
    const removed = await licenses.remove(deps.table, license, {
      hwidIndex,
      usernameIndex: usernameIndex?.license_key === license.key,
    });
    return removed || undefined;
  });
}

export async function deleteLicense(deps: Deps, input: OwnerInput<typeof licenseKeySchema>) {
  await deleteOwned(deps, input.teamId, input.license_key);
  return { key: input.license_key, deleted: true };
}
