import { mapConcurrently, runBulk } from '#core/domain/bulk';
import type { Deps } from '#core/deps';
import type { OwnerInput } from '#core/http/handler';
import { isOwnedLicense } from '#core/domain/ownership';
import { keys } from '#data/keys';
import type { ExpiryChange, License } from '#data/license.repo';
import { extendedBy, extendOwned, extensionProblem } from './extend';
import type { extendBulkSchema } from './schemas';

/** How long a marker protects against a repeated extension. */
const markerLifetimeSeconds = 7 * 86400;
/** A transaction holds at most 100 items; each license takes two, its update and its marker. */
const groupSize = 50;
const parallelGroups = 4;

/**
 * Extends each key exactly once. Each key's extension writes a marker in the
 * same transaction. Under the owner's `request_id`, a retried request (even a
 * concurrent one, or one after a crash midway) extends no key twice. Without
 * one, the marker is scoped to this API request: a group whose transaction was
 * applied although its answer was lost is not extended again key by key.
 *
 * The common case goes fast: the licenses are read in batches and extended in
 * groups, one transaction per group. A group that does not commit as read (a
 * key already extended under this request_id, a concurrent change) falls back
 * to key-by-key work, which also answers the keys that were not found.
 */
export async function extendInBulk(deps: Deps, input: OwnerInput<typeof extendBulkSchema>) {
  const ttl = Math.floor(deps.clock.now().getTime() / 1000) + markerLifetimeSeconds;
  const scope = { ownerRequestId: input.request_id, gatewayRequestId: input.requestId };
  const markerOf = (licenseKey: string): ExpiryChange['marker'] => ({
    id: keys.bulkMarker(input.teamId, '/license/extend-bulk', scope, licenseKey),
    ttl,
  });

  const distinct = [...new Set(input.license_keys)];
  const read = await deps.repos.licenses.getMany(distinct, input.teamId);
  // A key that cannot be extended goes key by key, where it gets its own INVALID_INPUT.
  const owned = distinct
    .map((key) => read.get(key))
    .filter((license): license is License => isOwnedLicense(deps, license, input.teamId) && extensionProblem(license, input.extend_seconds) === undefined);
  const groups = Array.from({ length: Math.ceil(owned.length / groupSize) }, (_, index) => owned.slice(index * groupSize, (index + 1) * groupSize));

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
