import type * as z from 'zod/mini';
import { runBulk } from '#core/domain/bulk';
import type { Deps } from '#core/deps';
import { deleteOwned } from './delete';
import type { licenseKeysSchema } from './schemas';

export function deleteInBulk(deps: Deps, input: z.infer<typeof licenseKeysSchema> & { teamId: string }) {
  return runBulk(input.license_keys, (licenseKey) => deleteOwned(deps, input.teamId, licenseKey), { logger: deps.logger });
}
