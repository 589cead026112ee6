import type { Deps } from '#core/deps';
import { ownedLicense } from '#core/domain/ownership';
import { licenseRecord } from '#core/domain/license-view';
import type { OwnerInput } from '#core/http/handler';
import type { licenseKeySchema } from './schemas';

export async function getLicense(deps: Deps, input: OwnerInput<typeof licenseKeySchema>) {
  return licenseRecord(deps, await ownedLicense(deps, input.teamId, input.license_key));
}
