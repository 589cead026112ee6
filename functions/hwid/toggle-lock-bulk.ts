import { runBulk } from '#core/domain/bulk';
import type { Deps } from '#core/deps';
import { notFound } from '#core/domain/ownership';
import type { OwnerInput } from '#core/http/handler';
import type { toggleLockBulkSchema } from './schemas';
import * as licenses from '#data/license.repo';

/**
 * Sets `hwid_lock` on each key on its own: a key that is missing or another
 * owner's fails alone as LICENSE_NOT_FOUND, an unexpected error fails alone as
 * SERVER_ERROR, and the rest go on. A license of an application the API key
 * is not limited to fails as a missing one. An explicit value makes a retried request
 * leave the same end state.
 */
export function toggleLockBulk(deps: Deps, input: OwnerInput<typeof toggleLockBulkSchema>) {
  return runBulk(
    input.license_keys,
    async (licenseKey) => {
      if (!(await licenses.updateFields(deps.table, licenseKey, input.teamId, { hwid_lock: input.hwid_lock }, {}, deps.appScope))) throw notFound.license();
    },
    { logger: deps.logger, workUntil: deps.workUntil },
  );
}
