import { backoffDefaults, backoffDelay, sleep } from './backoff';
import { cancelledTransiently } from './db';

/**
 * Retries of writes DynamoDB refused for a passing reason: throttling, a
 * transaction conflicting with another on the same item, an internal error.
 * The SDK retries throttled single calls itself, but not a transaction
 * cancelled for such a reason, which concurrent bulk work meets routinely.
 * (TransactionInProgressException is not among them: only a resend under the
 * same token may follow it, which transactWrite does.)
 */
const transientNames = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'InternalServerError',
  'TransactionConflictException',
]);

export function isTransient(error: unknown): boolean {
  return (error instanceof Error && transientNames.has(error.name)) || cancelledTransiently(error);
}

export async function withBackoff<T>(operation: () => Promise<T>, options = backoffDefaults): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (!isTransient(error) || attempt + 1 >= options.attempts) throw error;
      await sleep(backoffDelay(attempt, options));
    }
  }
}
