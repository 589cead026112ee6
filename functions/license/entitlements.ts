import type { Deps } from '#core/deps';
import { effectiveUsageLimits } from '#shared/entitlements';
import { hasOwnEntry } from '#shared/own-keys';
import { invalidInput } from '#core/http/errors';
import type { OwnerInput } from '#core/http/handler';
import { licenseRecord } from '#core/domain/license-view';
import { notFound, ownedLicense } from '#core/domain/ownership';
import type { resetUsageSchema, updateFeaturesSchema, updateUsageLimitsSchema } from './schemas';
import * as licenses from '#data/license.repo';
import * as subscriptions from '#data/subscription.repo';
import * as usage from '#data/usage.repo';

/** Replaces the license's own features; its subscription's still apply beside them. */
export async function updateFeatures(deps: Deps, input: OwnerInput<typeof updateFeaturesSchema>) {
  const license = await licenses.updateFields(deps.table, input.license_key, input.teamId, { features: input.features }, {}, deps.appScope);
  if (!license) throw notFound.license();
  return licenseRecord(deps, license);
}

/** Replaces the license's own usage limits; counts already made stay, measured against the new limits. */
export async function updateUsageLimits(deps: Deps, input: OwnerInput<typeof updateUsageLimitsSchema>) {
  const license = await licenses.updateFields(deps.table, input.license_key, input.teamId, { usage_limits: input.usage_limits }, {}, deps.appScope);
  if (!license) throw notFound.license();
  return licenseRecord(deps, license);
}

/** Sets one counter, or every counter the license has counted, back to 0 in its current period. */
export async function resetUsage(deps: Deps, input: OwnerInput<typeof resetUsageSchema>) {
  const license = await ownedLicense(deps, input.teamId, input.license_key);
  const subscription = await subscriptions.get(deps.table, license.subscription_id);
  if (input.counter !== undefined && !hasOwnEntry(effectiveUsageLimits(subscription, license), input.counter)) {
    throw invalidInput('counter: no usage limit of that name applies to the license');
  }
  const stored = Object.keys(license.counters ?? {});
  const after = await usage.reset(deps.table, license, input.counter === undefined ? stored : stored.filter((name) => name === input.counter));
  if (!after) throw notFound.license();
  return licenseRecord(deps, after);
}
