import type { Deps } from '#core/deps';
import { concurrentChange, invalidInput } from '#core/http/errors';
import { licenseRecord } from '#core/domain/license-view';
import { notFound, ownedLicense } from '#core/domain/ownership';
import type { OwnerInput } from '#core/http/handler';
import { isFloating, liveLeases } from '#data/model/lease';
import type { setMaxDevicesSchema } from './schemas';
import * as hwids from '#data/hwid.repo';
import * as licenses from '#data/license.repo';

/**
 * `/hwid/set-max-devices`: the number of seats. Fewer seats than bound devices
 * is refused rather than releasing devices the owner did not name
 * (`/hwid/remove` releases one). The write is conditional on the bound devices
 * as read, so a device bound in between is counted. On a floating license the
 * devices bound are those with a live lease: listed devices whose lease ended
 * hold no seat, and the next seat taken drops them (its condition counts the
 * list against the new number).
 */
export async function setMaxDevices(deps: Deps, input: OwnerInput<typeof setMaxDevicesSchema>) {
  for (let attempt = 1; attempt <= 3; attempt++) {
    const license = await ownedLicense(deps, input.teamId, input.license_key);
    const bound = isFloating(license) ? liveLeases(license, deps.clock.now()).length : license.hwids.length;
    if (bound > input.max_devices) {
      throw invalidInput(`max_devices: must be at least the ${bound} devices bound now (release some with /hwid/remove)`);
    }
    if (await hwids.setMaxDevices(deps.table, license, input.max_devices)) {
      const updated = await licenses.get(deps.table, license.key, license.team_id);
      if (!updated) throw notFound.license();
      return licenseRecord(deps, updated);
    }
  }
  throw concurrentChange();
}
