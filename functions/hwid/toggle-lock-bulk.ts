import type { Deps } from '#core/deps';
import type { ManagementErrorCode } from '#core/errors';
import { describeError } from '#core/logger';
import type { ToggleLockBulkInput } from './schemas';

/** Keys in flight at once: enough to overlap round trips, few enough not to burst the table's capacity. */
const CONCURRENCY = 16;

interface BulkResult {
  succeeded: string[];
  failed: { license_key: string; error_code: ManagementErrorCode }[];
}

/**
 * Sets `hwid_lock` on each key on its own: a key that is missing or another
 * owner's fails alone as LICENSE_NOT_FOUND, an unexpected error fails alone as
 * SERVER_ERROR, and the rest go on. An explicit value makes a retried request
 * leave the same end state.
 */
export async function toggleLockBulk(deps: Deps, input: ToggleLockBulkInput & { teamId: string }): Promise<BulkResult> {
  const outcomes = await mapBounded(input.license_keys, CONCURRENCY, async (licenseKey): Promise<ManagementErrorCode | undefined> => {
    try {
      const updated = await deps.repos.licenses.updateFields(licenseKey, input.teamId, { hwid_lock: input.hwid_lock });
      return updated ? undefined : 'LICENSE_NOT_FOUND';
    } catch (error) {
      // The key is an end user's credential: it stays out of the logs.
      deps.logger.error('hwid lock update failed', describeError(error));
      return 'SERVER_ERROR';
    }
  });
  const result: BulkResult = { succeeded: [], failed: [] };
  input.license_keys.forEach((licenseKey, index) => {
    const errorCode = outcomes[index];
    if (errorCode) result.failed.push({ license_key: licenseKey, error_code: errorCode });
    else result.succeeded.push(licenseKey);
  });
  return result;
}

/** Runs `work` over `items` with at most `limit` in flight; results keep the items' order. */
async function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
