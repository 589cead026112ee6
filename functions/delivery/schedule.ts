/**
 * The retry schedule and the disabling rule (docs/webhooks.md#retries-and-disabling).
 * A delivery gets a first attempt and then one retry after each of these
 * waits; after the last it is `failed`.
 */
export const retryWaitsSeconds = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600] as const;

export const maxAttempts = retryWaitsSeconds.length + 1;

/** Each wait is stretched or shortened by up to a fifth, so endpoints that failed together are not retried together. */
const jitter = 0.2;

/** The wait before attempt `attempt + 1` (seconds), or undefined after the last attempt. */
export function waitAfter(attempt: number, random: () => number = Math.random): number | undefined {
  const base = retryWaitsSeconds[attempt - 1];
  return base === undefined ? undefined : base * (1 + jitter * (2 * random() - 1));
}

/** An endpoint is disabled once every attempt has failed for this long… */
export const disableAfterFailingMs = 5 * 86400_000;
/** …or once this many deliveries in a row ended `failed`. */
export const disableAfterFailedDeliveries = 50;

/** How long a worker owns an attempt it began: more than the attempt's 15 seconds and the function's timeout. */
export const attemptLeaseMs = 90_000;

/** A delivery's log stays this long after its event, then the table's TTL removes it. */
export const deliveryRetentionSeconds = 30 * 86400;
