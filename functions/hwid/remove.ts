import type { Deps } from '#core/deps';
import { ManagementError } from '#core/http/errors';
import type { OwnerInput } from '#core/http/handler';
import type { removeHwidSchema } from './schemas';
import { changeOwnedHwids } from './edit';

const hwidNotFound = () => new ManagementError('HWID_NOT_FOUND');

/** `/hwid/remove`: releases one device and its seat; the reset cooldown is the end user's and stays as it is. */
export function removeHwid(deps: Deps, input: OwnerInput<typeof removeHwidSchema>) {
  return changeOwnedHwids(deps, input.teamId, input.license_key, (license) => {
    if (!license.hwids.includes(input.hwid)) throw hwidNotFound();
    return { hwids: license.hwids.filter((hwid) => hwid !== input.hwid), claim: false };
  });
}
