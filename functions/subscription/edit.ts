import type { Deps } from '#core/deps';
import { notFound, ownedSubscription } from '#core/domain/ownership';
import type { OwnerInput } from '#core/http/handler';
import type { editSubscriptionSchema } from './schemas';
import { subscriptionView } from './subscription-view';
import * as subscriptions from '#data/subscription.repo';

/**
 * Changes only the fields sent. Turning `single_key_per_hwid` on does not
 * retro-fit index items for HWIDs bound before: it applies to bindings made from then on.
 */
export async function editSubscription(deps: Deps, input: OwnerInput<typeof editSubscriptionSchema>) {
  await ownedSubscription(deps, input.teamId, input.subscription_id);
  const { subscription_id: subscriptionId, teamId: _team, ...fields } = input;
  const updated = await subscriptions.update(deps.table, subscriptionId, fields);
  if (!updated) throw notFound.subscription();
  return subscriptionView(updated);
}
