import { concurrentChange } from '#core/http/errors';
import { backoffDelay, sleep } from '#data/backoff';

const attempts = 8;

/**
 * Read-compute-conditional-write, again while someone else's write keeps
 * getting in between: `attempt` answers undefined when its condition failed
 * because the license changed since it was read.
 */
export async function optimistic<T>(attempt: () => Promise<T | undefined>): Promise<T> {
  for (let round = 0; round < attempts; round++) {
    if (round > 0) await sleep(backoffDelay(round));
    const result = await attempt();
    if (result !== undefined) return result;
  }
  throw concurrentChange();
}
