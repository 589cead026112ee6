import type * as z from 'zod/mini';
import type { Deps } from '#core/deps';
import { managementView } from '#core/license-view';
import { notFound, ownedLicense } from '#core/ownership';
import type { updateSubscriptionSchema } from './schemas';
import { subscriptionForApp } from './subscription-of-app';

/** Moves a license to another tier of the same application. */
export async function updateSubscription(deps: Deps, input: z.infer<typeof updateSubscriptionSchema> & { teamId: string }) {
  const license = await ownedLicense(deps, input.teamId, input.license_key);
  const subscription = await subscriptionForApp(deps, input.teamId, license.app_id, input.subscription_id);
  const updated = await deps.repos.licenses.updateFields(
    license.key,
    input.teamId,
    { subscription_id: subscription.subscription_id },
    { app_id: license.app_id },
  );
  if (!updated) throw notFound.license();
  return managementView(updated, subscription);
}
