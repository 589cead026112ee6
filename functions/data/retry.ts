import { backoffDefaults, backoffDelay, sleep } from './backoff';

/** DynamoDB's answer when a condition on a single write fails. */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** The per-item reason codes of a cancelled transaction; undefined for any other error. */
export function cancellationCodes(error: unknown): (string | undefined)[] | undefined {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return undefined;
  const reasons = (error as Error & { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.map((reason) => reason.Code);
}

const transientCancellationCodes = new Set(['ThrottlingError', 'TransactionConflict', 'ProvisionedThroughputExceeded', 'InternalServerError']);

/** A transaction cancelled only for passing reasons (throttling, a conflict, an internal error): a retry may succeed. */
export function cancelledTransiently(error: unknown): boolean {
  const codes = cancellationCodes(error);
  if (!codes || codes.includes('ConditionalCheckFailed')) return false;
  return codes.some((code) => code !== undefined && transientCancellationCodes.has(code));
}

/**
 * Writes DynamoDB refused for a passing reason: throttling, a transaction
 * conflicting with another on the same item, an internal error, a transaction
 * whose token's first attempt still runs. The SDK retries throttled calls
 * itself, but not a transaction cancelled for such a reason, which concurrent
 * work meets routinely, nor a single write that met a running transaction.
 * Every transaction is sent again under the token it was first sent with
 * (transactWrite), so a retry never applies one twice.
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

export interface BackoffOptions {
  attempts: number;
  baseMs: number;
  maxMs: number;
  /** Which failures are worth another attempt; transient ones unless told otherwise. */
  retryable?: (error: unknown) => boolean;
}

export async function withBackoff<T>(operation: () => Promise<T>, options: BackoffOptions = backoffDefaults): Promise<T> {
  const retryable = options.retryable ?? isTransient;
  for (let attempt = 0; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (!retryable(error) || attempt + 1 >= options.attempts) throw error;
      await sleep(backoffDelay(attempt, options));
    }
  }
}
