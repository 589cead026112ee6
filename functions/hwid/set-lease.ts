import type { Deps } from '#core/deps';
import { concurrentChange } from '#core/http/errors';
import { licenseRecord } from '#core/domain/license-view';
import { notFound, ownedLicense } from '#core/domain/ownership';
import type { OwnerInput } from '#core/http/handler';
import type { setLeaseSchema } from './schemas';
import * as hwids from '#data/hwid.repo';
import * as leases from '#data/lease.repo';
import * as licenses from '#data/license.repo';

/**
 * `/hwid/set-lease` (docs/management-api.md, "Floating seats"): turns leasing on, changes the
 * lease length or, with null, turns it off (live leases become bindings for
 * good, ended ones are dropped). Re-read and tried again when a heartbeat or
 * another change got in between.
 */
export async function setLease(deps: Deps, input: OwnerInput<typeof setLeaseSchema>) {
  for (let attempt = 1; attempt <= 3; attempt++) {
    const license = await ownedLicense(deps, input.teamId, input.license_key);
    if (license.lease_seconds === input.lease_seconds) return licenseRecord(deps, license);
    const heldClaims = input.lease_seconds === null ? await hwids.heldBy(deps.table, license) : [];
    if (await leases.setLeaseSeconds(deps.table, license, input.lease_seconds, deps.clock.now(), heldClaims)) {
      const updated = await licenses.get(deps.table, license.key, license.team_id);
      if (!updated) throw notFound.license();
      return licenseRecord(deps, updated);
    }
  }
  throw concurrentChange();
}
