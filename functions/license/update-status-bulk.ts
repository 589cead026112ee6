import { runBulk } from '#core/domain/bulk';
import type { Deps } from '#core/deps';
import type { OwnerInput } from '#core/http/handler';
import type { updateStatusBulkSchema } from './schemas';
import { setStatusOwned } from './update-status';

export function updateStatusInBulk(deps: Deps, input: OwnerInput<typeof updateStatusBulkSchema>) {
  return runBulk(input.license_keys, (licenseKey) => setStatusOwned(deps, input.teamId, licenseKey, input.status), {
    logger: deps.logger,
    workUntil: deps.workUntil,
  });
}
