import { iso } from '#shared/clock';
import type { Deps } from '#core/deps';
import { ManagementError } from '#core/http/errors';
import { notFound, ownedLicense } from '#core/domain/ownership';
import { concurrentChange } from '#core/http/errors';
import { licenseRecord } from '#core/domain/license-view';
import type { OwnerInput } from '#core/http/handler';
import type { HwidChange } from '#data/model/hwid';
import type { License } from '#data/model/license';
import type { editHwidSchema } from './schemas';
import * as hwids from '#data/hwid.repo';
import * as licenses from '#data/license.repo';
import * as subscriptions from '#data/subscription.repo';

export const hwidInUse = () => new ManagementError('HWID_IN_USE');

/**
 * Replaces the bound HWIDs of a license of this team, re-reading and trying
 * once more when a concurrent writer got in between. `change` decides from
 * the license as read: undefined leaves it as it is.
 */
export async function changeOwnedHwids(
  deps: Deps,
  teamId: string,
  licenseKey: string,
  change: (license: License) => Promise<Omit<HwidChange, 'license'> | undefined> | Omit<HwidChange, 'license'> | undefined,
) {
  for (let attempt = 1; attempt <= 2; attempt++) {
    const license = await ownedLicense(deps, teamId, licenseKey);
    const wanted = await change(license);
    if (!wanted) return licenseRecord(deps, license);
    const outcome = await hwids.replaceHwids(deps.table, { license, now: iso(deps.clock.now()), ...wanted });
    if (outcome === 'hwid-in-use') throw hwidInUse();
    if (outcome === 'changed') {
      const updated = await licenses.get(deps.table, license.key, license.team_id);
      if (!updated) throw notFound.license();
      return licenseRecord(deps, updated);
    }
  }
  throw concurrentChange();
}

/**
 * `/hwid/edit`: a string makes it the only bound HWID (on a license with
 * several seats too), null clears every HWID. Clearing frees the devices (their
 * index items) and starts the reset cooldown; setting under
 * `single_key_per_hwid` claims the device for this license.
 */
export function editHwid(deps: Deps, input: OwnerInput<typeof editHwidSchema>) {
  return changeOwnedHwids(deps, input.teamId, input.license_key, async (license) => {
    if (input.hwid === null) return { hwids: [], resetAt: iso(deps.clock.now()), claim: false };
    const subscription = await subscriptions.get(deps.table, license.subscription_id);
    return { hwids: [input.hwid], claim: subscription?.single_key_per_hwid === true, claimKept: true };
  });
}
