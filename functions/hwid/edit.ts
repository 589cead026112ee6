import { iso } from '#core/clock';
import type { Deps } from '#core/deps';
import { ManagementError } from '#core/errors';
import { notFound, ownedLicense } from '#core/ownership';
import { concurrentChange } from '#core/errors';
import { licenseRecord } from '#core/license-view';
import type { EditHwidInput } from './schemas';

const hwidInUse = () => new ManagementError(409, 'HWID_IN_USE', 'This HWID is bound to another license of the application');

/**
 * Sets or clears a license's HWID. Clearing frees the device (its index item) and
 * starts the reset cooldown; setting under `single_key_per_hwid` claims the device
 * for this license. A change lost to a concurrent writer is re-read and retried once.
 */
export async function editHwid(deps: Deps, input: EditHwidInput & { teamId: string }) {
  for (let attempt = 1; attempt <= 2; attempt++) {
    const license = await ownedLicense(deps, input.teamId, input.license_key);
    const subscription = input.hwid === null ? undefined : await deps.repos.subscriptions.get(license.subscription_id);
    const outcome = await deps.repos.hwids.changeLicenseHwid({
      license,
      hwid: input.hwid,
      resetAt: input.hwid === null ? iso(deps.clock.now()) : undefined,
      claim: subscription?.single_key_per_hwid === true,
    });
    if (outcome === 'hwid-in-use') throw hwidInUse();
    if (outcome === 'changed') {
      const updated = await deps.repos.licenses.get(license.key, input.teamId);
      if (!updated) throw notFound.license();
      return licenseRecord(deps, updated);
    }
  }
  throw concurrentChange();
}
