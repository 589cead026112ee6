import type { Deps } from '#core/deps';
import { notFound, ownedSubscription } from '#core/domain/ownership';
import type { OwnerInput } from '#core/http/handler';
import type { deleteSubscriptionSchema } from './schemas';
import * as subscriptions from '#data/subscription.repo';

/** Licenses of the tier stay; /auth answers them SUBSCRIPTION_ERROR until moved to another tier. */
export async function deleteSubscription(deps: Deps, input: OwnerInput<typeof deleteSubscriptionSchema>) {
  await ownedSubscription(deps, input.teamId, input.subscription_id);
  if (!(await subscriptions.remove(deps.table, input.subscription_id))) throw notFound.subscription();
  return { subscription_id: input.subscription_id, deleted: true };
}
