import type { Deps } from '#core/deps';
import { ManagementError } from '#core/http/errors';
import type { RemoveHwidInput } from './schemas';
import { changeOwnedHwids } from './edit';

const hwidNotFound = () => new ManagementError(404, 'HWID_NOT_FOUND', 'This HWID is not bound to the license');

/** `/hwid/remove`: releases one device and its seat; the reset cooldown is the end user's and stays as it is. */
export function removeHwid(deps: Deps, input: RemoveHwidInput & { teamId: string }) {
  return changeOwnedHwids(deps, input.teamId, input.license_key, (license) => {
    if (!license.hwids.includes(input.hwid)) throw hwidNotFound();
    return { hwids: license.hwids.filter((hwid) => hwid !== input.hwid), claim: false };
  });
}
