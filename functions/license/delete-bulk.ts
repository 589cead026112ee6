import { runBulk } from '#core/domain/bulk';
import type { Deps } from '#core/deps';
import type { OwnerInput } from '#core/http/handler';
import { deleteOwned } from './delete';
import type { licenseKeysSchema } from './schemas';

export function deleteInBulk(deps: Deps, input: OwnerInput<typeof licenseKeysSchema>) {
  return runBulk(input.license_keys, (licenseKey) => deleteOwned(deps, input.teamId, licenseKey), { logger: deps.logger, workUntil: deps.workUntil });
}
