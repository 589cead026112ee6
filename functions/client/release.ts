import type { Deps } from '#core/deps';
import { clientFailure } from '#core/http/errors';
import { authView } from '#core/domain/license-view';
import type { BlacklistProbe } from '#data/model/blacklist';
import { isFloating, isLive, leaseOfDevice } from '#data/model/lease';
import type { License } from '#data/model/license';
import { afterLostRace, checkedLicense } from './auth';
import type { ReleaseInput } from './schemas';
import * as leases from '#data/lease.repo';

export const seatReleasedMessage = 'SEAT_RELEASED';

/**
 * `POST /release` (docs/client-api.md, "POST /release"): /auth's steps 2 to 8, step 9's
 * `HWID_NOT_PROVIDED`, then the release's own checks in order, then one
 * transaction that gives the seat up. The seat is free at once: the next
 * /auth of another device may take it.
 */
export async function releaseSeat(deps: Deps, input: ReleaseInput, probes: BlacklistProbe[]) {
  const checked = await checkedLicense(deps, input, probes);
  const { now, subscription } = checked;
  let license = checked.license;
  for (let attempt = 1; ; attempt++) {
    if (license.hwid_lock && input.hwid === undefined) throw clientFailure('HWID_NOT_PROVIDED');
    if (!isFloating(license)) throw clientFailure('LICENSE_NOT_FLOATING');
    const hwid = input.hwid!;
    const lease = leaseOfDevice(license, hwid);
    if (!isLive(lease, now) || !license.hwids.includes(hwid)) throw clientFailure('HWID_NOT_BOUND');
    if (lease.borrowed) throw clientFailure('LEASE_BORROWED', { lease_expires_at: lease.expires_at });
    if ((await leases.release(deps.table, license, hwid, lease, subscription.single_key_per_hwid)) === 'released') {
      const hwids = license.hwids.filter((listed) => listed !== hwid);
      const leases = Object.fromEntries(Object.entries(license.leases).filter(([listed]) => listed !== hwid));
      const after: License = { ...license, hwids, hwid: hwids[0] ?? null, leases };
      return { message: seatReleasedMessage, data: authView(after, subscription, now, hwid) };
    }
    license = await afterLostRace(deps, license, input.appId, now, attempt, subscription.grace_seconds);
  }
}
