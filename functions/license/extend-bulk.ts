import type * as z from 'zod';
import { runBulk } from '#core/bulk';
import type { Deps } from '#core/deps';
import { keys } from '#data/keys';
import { extendOwned } from './extend';
import type { extendBulkSchema } from './schemas';

/** How long a `request_id` protects against a repeated extension. */
const markerLifetimeSeconds = 7 * 86400;

/**
 * Extends each key on its own. With `request_id`, each key's extension writes
 * a marker in the same transaction, so a retried request (even a concurrent
 * one, or one after a crash midway) extends every key exactly once.
 */
export function extendInBulk(deps: Deps, input: z.infer<typeof extendBulkSchema> & { teamId: string }) {
  const ttl = Math.floor(deps.clock.now().getTime() / 1000) + markerLifetimeSeconds;
  return runBulk(
    input.license_keys,
    (licenseKey) =>
      extendOwned(
        deps,
        input.teamId,
        licenseKey,
        input.extend_seconds,
        input.request_id === undefined
          ? undefined
          : { id: keys.request(input.teamId, '/license/extend-bulk', `${input.request_id}#${licenseKey}`), ttl },
      ),
    { logger: deps.logger },
  );
}
