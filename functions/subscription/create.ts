import { iso } from '#shared/clock';
import type { Deps } from '#core/deps';
import { newId } from '#core/ids';
import { ownedApp } from '#core/domain/ownership';
import type { OwnerInput } from '#core/http/handler';
import type { Subscription } from '#data/model/subscription';
import type { createSubscriptionSchema } from './schemas';
import { subscriptionView } from './subscription-view';
import * as subscriptions from '#data/subscription.repo';

export async function createSubscription(deps: Deps, input: OwnerInput<typeof createSubscriptionSchema>) {
  const app = await ownedApp(deps, input.teamId, input.app_id);
  const subscription: Subscription = {
    subscription_id: newId(),
    app_id: app.app_id,
    team_id: app.team_id,
    name: input.name,
    level: input.level,
    single_key_per_hwid: input.single_key_per_hwid,
    features: input.features,
    usage_limits: input.usage_limits,
    grace_seconds: input.grace_seconds,
    status: 'active',
    created_at: iso(deps.clock.now()),
  };
  if (!(await subscriptions.create(deps.table, subscription))) throw new Error(`subscription ID ${subscription.subscription_id} collided`);
  return subscriptionView(subscription);
}
