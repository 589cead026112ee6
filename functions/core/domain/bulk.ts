import { describeError, licenseFingerprint, type Logger } from '../logger';
import { ManagementError, type ManagementErrorCode } from '../http/errors';

export interface BulkFailure {
  license_key: string;
  error_code: ManagementErrorCode;
}

/** The per-key answer of every bulk operation (docs/management-api.md, Licenses). */
export interface BulkResult {
  succeeded: string[];
  failed: BulkFailure[];
}

/** Enough to keep DynamoDB busy without one request starving the Lambda's sockets. */
export const defaultBulkConcurrency = 16;

/**
 * Whether the request may still start a write: a bulk route stops starting them
 * at `deps.workUntil` (core/http/handler.ts), so that on a slow store it still
 * answers in time, with what it did and what it did not start.
 */
export function mayStartWork(deps: { workUntil?: number }): boolean {
  return deps.workUntil === undefined || Date.now() < deps.workUntil;
}

/** What a key whose work was not started in the request's time answers: nothing was done to it, sending it again is safe. */
export const notStarted = (): ManagementError => new ManagementError('SERVICE_UNAVAILABLE');

/** Errors by which the store says it is slow or busy (after the SDK's own retries), not that the request was wrong. */
const unavailableNames = new Set([
  'TimeoutError',
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TransactionConflictException',
]);

/** Whether an error says the store could not serve the request now: a read that failed so changed nothing, and can be sent again. */
export function storeUnavailable(error: unknown): boolean {
  const fault = (error ?? {}) as { name?: string; $fault?: string };
  return fault.$fault === 'server' || unavailableNames.has(fault.name ?? '');
}

/**
 * Runs `work` once per distinct key, at most `concurrency` at a time. A key
 * succeeds when its work resolves; a ManagementError becomes that key's
 * `error_code`; anything else is logged and reported as SERVER_ERROR for that
 * key alone, so one bad key never fails the rest. A key whose turn comes after
 * `workUntil` is not started and answers SERVICE_UNAVAILABLE, except the first,
 * so that sending those keys again always gets on; work in flight then is
 * waited for. Answers keep the request's order.
 */
export async function runBulk(
  keys: readonly string[],
  work: (key: string) => Promise<unknown>,
  options: { logger: Logger; concurrency?: number; workUntil?: number },
): Promise<BulkResult> {
  const distinct = [...new Set(keys)];
  let started = 0;
  const outcomes = await mapConcurrently(distinct, options.concurrency ?? defaultBulkConcurrency, async (key): Promise<ManagementErrorCode | null> => {
    if (started > 0 && !mayStartWork(options)) return notStarted().code;
    started++;
    try {
      await work(key);
      return null;
    } catch (error) {
      if (error instanceof ManagementError) return error.code;
      // The key is an end user's credential: the log tells keys apart by fingerprint only.
      options.logger.error('bulk item failed', { license_fingerprint: licenseFingerprint(key), ...describeError(error, [key]) });
      return 'SERVER_ERROR';
    }
  });

  const result: BulkResult = { succeeded: [], failed: [] };
  distinct.forEach((key, index) => {
    const code = outcomes[index];
    if (code) result.failed.push({ license_key: key, error_code: code });
    else result.succeeded.push(key);
  });
  return result;
}

/** `Promise.all` over `items` with at most `concurrency` calls of `work` in flight; results keep the input's order. */
export async function mapConcurrently<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}
