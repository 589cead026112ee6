import type * as z from 'zod';
import { mapConcurrently, runBulk } from '#core/bulk';
import type { Deps } from '#core/deps';
import { isOwnedLicense } from '#core/ownership';
import { keys } from '#data/keys';
import type { ExpiryChange, License } from '#data/license.repo';
import { extendedBy, extendOwned } from './extend';
import type { extendBulkSchema } from './schemas';

/** How long a `request_id` protects against a repeated extension. */
const markerLifetimeSeconds = 7 * 86400;
/** A transaction holds at most 100 items; with markers each license takes two. */
const groupSize = { withMarkers: 50, withoutMarkers: 100 };
const parallelGroups = 4;

/**
 * Extends each key exactly once. With `request_id`, each key's extension
 * writes a marker in the same transaction, so a retried request (even a
 * concurrent one, or one after a crash midway) extends no key twice.
 *
 * The common case goes fast: the licenses are read in batches and extended in
 * groups, one transaction per group. A group that does not commit as read (a
 * key already extended under this request_id, a concurrent change) falls back
 * to key-by-key work, which also answers the keys that were not found.
 */
export async function extendInBulk(deps: Deps, input: z.infer<typeof extendBulkSchema> & { teamId: string }) {
  const ttl = Math.floor(deps.clock.now().getTime() / 1000) + markerLifetimeSeconds;
  const markerOf = (licenseKey: string): ExpiryChange['marker'] =>
    input.request_id === undefined
      ? undefined
      : { id: keys.request(input.teamId, '/license/extend-bulk', `${input.request_id}#${licenseKey}`), ttl };

  const distinct = [...new Set(input.license_keys)];
  const read = await deps.repos.licenses.getMany(distinct);
  const owned = distinct.map((key) => read.get(key)).filter((license): license is License => isOwnedLicense(license, input.teamId));
  const size = input.request_id === undefined ? groupSize.withoutMarkers : groupSize.withMarkers;
  const groups = Array.from({ length: Math.ceil(owned.length / size) }, (_, index) => owned.slice(index * size, (index + 1) * size));

  const extended = new Set<string>();
  await mapConcurrently(groups, parallelGroups, async (group) => {
    const changes = group.map((license) => ({ before: license, after: extendedBy(license, input.extend_seconds), marker: markerOf(license.key) }));
    if (await deps.repos.licenses.replaceExpiries(changes)) group.forEach((license) => extended.add(license.key));
  });

  return runBulk(
    distinct,
    async (licenseKey) => {
      if (!extended.has(licenseKey)) await extendOwned(deps, input.teamId, licenseKey, input.extend_seconds, markerOf(licenseKey));
    },
    { logger: deps.logger },
  );
}
