import type * as z from 'zod/mini';
import { runBulk } from '#core/domain/bulk';
import type { Deps } from '#core/deps';
import type { updateStatusBulkSchema } from './schemas';
import { setStatusOwned } from './update-status';

export function updateStatusInBulk(deps: Deps, input: z.infer<typeof updateStatusBulkSchema> & { teamId: string }) {
  return runBulk(input.license_keys, (licenseKey) => setStatusOwned(deps, input.teamId, licenseKey, input.status), {
    logger: deps.logger,
  });
}
