import type { Deps } from '#core/deps';
import type { Page } from '#core/http/handler';
import { ownedApp } from '#core/domain/ownership';
import type { OwnerInput } from '#core/http/handler';
import type { listSubscriptionsSchema } from './schemas';
import { subscriptionView } from './subscription-view';
import * as subscriptions from '#data/subscription.repo';

/** An app has a handful of tiers: one page holds them all, oldest first. */
export async function listSubscriptions(deps: Deps, input: OwnerInput<typeof listSubscriptionsSchema>): Promise<Page<ReturnType<typeof subscriptionView>>> {
  await ownedApp(deps, input.teamId, input.app_id);
  const tiers = await subscriptions.listByApp(deps.table, input.app_id);
  return { items: tiers.map(subscriptionView), nextCursor: null };
}
