import { cancelledTransiently } from './db';

/**
 * Retries of writes DynamoDB refused for a passing reason: throttling, a
 * transaction conflicting with another on the same item, an internal error.
 * The SDK retries throttled single calls itself, but not a transaction
 * cancelled for such a reason, which concurrent bulk work meets routinely.
 */
const transientNames = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'InternalServerError',
  'TransactionConflictException',
  'TransactionInProgressException',
]);

export function isTransient(error: unknown): boolean {
  return (error instanceof Error && transientNames.has(error.name)) || cancelledTransiently(error);
}

export const backoffDefaults = { attempts: 6, baseMs: 25, maxMs: 1000 };

/** Exponential backoff with full jitter, so racing retries spread out instead of colliding again. */
export function backoffDelay(attempt: number, options = backoffDefaults): number {
  return Math.random() * Math.min(options.maxMs, options.baseMs * 2 ** attempt);
}

export const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

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
