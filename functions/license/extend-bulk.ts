import { mapConcurrently, mayStartWork, notStarted, runBulk, storeUnavailable } from '#core/domain/bulk';
import type { Deps } from '#core/deps';
import type { OwnerInput } from '#core/http/handler';
import { describeError } from '#core/logger';
import { isOwnedLicense, notFound } from '#core/domain/ownership';
import { maxTransactItems } from '#data/db';
import { keys } from '#data/keys';
import type { ExpiryChange, License } from '#data/model/license';
import { extendedBy, extendOwned, extensionProblem } from './extend';
import type { extendBulkSchema } from './schemas';
import * as licenses from '#data/license.repo';

/** How long a marker protects against a repeated extension. */
const markerLifetimeSeconds = 7 * 86400;
const parallelGroups = 4;
/** Sends of a group's transaction whose outcome stays unknown before its keys are reported failed (no marker to fall back on). */
const unknownOutcomeSends = 3;

/**
 * Extends each key exactly once. The licenses are read in batches and
 * extended in groups, one transaction per group, each update conditional on
 * the license as read. A group that does not commit as read (a concurrent
 * change, a key already extended under this request_id) falls back to
 * key-by-key work, which also answers the keys that were not found.
 *
 * Under the owner's `request_id` each key's extension writes a marker in the
 * same transaction, so a retried request (even a concurrent one, or one after
 * a crash midway) extends no key twice, and a group whose answer was lost
 * can go key by key. Without one a marker would only guard this API request,
 * which the transaction's token already does: the group is sent again with
 * the same token (an applied one answers success), half the items per key,
 * and its keys are reported failed if its outcome stays unknown rather than
 * risk a second extension.
 *
 * No group or key is started after the request's time for work
 * (`deps.workUntil`), but for the first: those keys answer SERVICE_UNAVAILABLE,
 * not extended, and the same request sent again for them (with the same
 * `request_id`) goes on with them. A store that cannot even give the licenses to extend answers 503
 * SERVICE_UNAVAILABLE for the whole request: nothing was changed.
 */
export async function extendInBulk(deps: Deps, input: OwnerInput<typeof extendBulkSchema>) {
  const ttl = Math.floor(deps.clock.now().getTime() / 1000) + markerLifetimeSeconds;
  const markerOf = (licenseKey: string): ExpiryChange['marker'] =>
    input.request_id === undefined
      ? undefined
      : { id: keys.bulkMarker(input.teamId, '/license/extend-bulk', { ownerRequestId: input.request_id, gatewayRequestId: input.requestId }, licenseKey), ttl };
  // A transaction holds at most 100 items: a license's update, and its marker when there is one.
  const groupSize = input.request_id === undefined ? maxTransactItems : maxTransactItems / 2;

  const distinct = [...new Set(input.license_keys)];
  let read: Map<string, License>;
  try {
    read = await licenses.getMany(deps.table, distinct, input.teamId);
  } catch (error) {
    if (!storeUnavailable(error)) throw error;
    deps.logger.warn('extend-bulk: the licenses could not be read', describeError(error, distinct));
    throw notStarted();
  }
  // A key that cannot be extended goes key by key, where it gets its own INVALID_INPUT.
  const owned = distinct
    .map((key) => read.get(key))
    .filter((license): license is License => isOwnedLicense(deps, license, input.teamId) && extensionProblem(license, input.extend_seconds) === undefined);
  const groups = Array.from({ length: Math.ceil(owned.length / groupSize) }, (_, index) => owned.slice(index * groupSize, (index + 1) * groupSize));

  const extended = new Set<string>();
  const unknown = new Set<string>();
  let started = 0;
  const mayStart = () => (started++ === 0 || mayStartWork(deps));
  await mapConcurrently(groups, parallelGroups, async (group) => {
    // A group not started goes key by key, where its keys are answered as not started too.
    if (!mayStart()) return;
    const changes = group.map((license) => ({ before: license, after: extendedBy(license, input.extend_seconds), marker: markerOf(license.key) }));
    let outcome = await licenses.replaceExpiries(deps.table, changes);
    for (let sent = 1; outcome === 'unknown' && input.request_id === undefined && sent < unknownOutcomeSends; sent++) outcome = await licenses.replaceExpiries(deps.table, changes);
    if (outcome === 'updated') group.forEach((license) => extended.add(license.key));
    else if (outcome === 'unknown' && input.request_id === undefined) group.forEach((license) => unknown.add(license.key));
  });

  return runBulk(
    distinct,
    async (licenseKey) => {
      if (unknown.has(licenseKey)) throw new Error('the extension of this key could not be confirmed');
      if (extended.has(licenseKey)) return;
      // A key the read did not find is answered without more work, in time or not.
      if (!isOwnedLicense(deps, read.get(licenseKey), input.teamId)) throw notFound.license();
      if (!mayStart()) throw notStarted();
      await extendOwned(deps, input.teamId, licenseKey, input.extend_seconds, markerOf(licenseKey));
    },
    { logger: deps.logger },
  );
}
