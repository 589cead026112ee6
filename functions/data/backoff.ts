export const backoffDefaults = { attempts: 6, baseMs: 25, maxMs: 1000 };

/** Exponential backoff with full jitter, so racing retries spread out instead of colliding again. */
export function backoffDelay(attempt: number, options = backoffDefaults): number {
  return Math.random() * Math.min(options.maxMs, options.baseMs * 2 ** attempt);
}

export const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));
