import { addSeconds, latestTime, latestTimeMs } from '#shared/clock';
import { invalidInput } from '#core/http/errors';
import type { Deps } from '#core/deps';
import { ownedLicense } from '#core/domain/ownership';
import type { ExpiryChange, License } from '#data/model/license';
import { licenseRecord } from '#core/domain/license-view';
import type { OwnerInput } from '#core/http/handler';
import { optimistic } from './optimistic';
import { limits, type extendSchema } from './schemas';
import * as licenses from '#data/license.repo';

/**
 * Why this extension cannot be made: an unused license's duration stays within
 * the 100 years a new one may have, a used one ends by `latestTime`.
 */
export function extensionProblem(license: License, seconds: number): string | undefined {
  if (license.expires_at === null) {
    return license.initial_duration + seconds > limits.maxDurationSeconds ? 'extend_seconds: would make the duration longer than 100 years' : undefined;
  }
  return Date.parse(license.expires_at) + seconds * 1000 > latestTimeMs ? `extend_seconds: would extend the license past ${latestTime}` : undefined;
}

/** A used license runs until `expires_at`; an unused one has not started its clock, so its duration grows. */
export function extendedBy(license: License, seconds: number): Pick<License, 'expires_at' | 'initial_duration'> {
  const problem = extensionProblem(license, seconds);
  if (problem) throw invalidInput(problem);
  return license.expires_at === null
    ? { expires_at: null, initial_duration: license.initial_duration + seconds }
    : { expires_at: addSeconds(license.expires_at, seconds), initial_duration: license.initial_duration };
}

/**
 * Extends a license of this team. With a marker, a marker that exists already
 * means this extension was done before: the license is left as it is.
 */
export function extendOwned(
  deps: Deps,
  teamId: string,
  licenseKey: string,
  seconds: number,
  marker?: ExpiryChange['marker'],
): Promise<License> {
  return optimistic(async () => {
    const license = await ownedLicense(deps, teamId, licenseKey);
    const after = extendedBy(license, seconds);
    const outcome = await licenses.replaceExpiry(deps.table, { before: license, after, marker });
    if (outcome === 'updated') return { ...license, ...after };
    return outcome === 'already_done' ? license : undefined;
  });
}

export async function extendLicense(deps: Deps, input: OwnerInput<typeof extendSchema>) {
  return licenseRecord(deps, await extendOwned(deps, input.teamId, input.license_key, input.extend_seconds));
}
