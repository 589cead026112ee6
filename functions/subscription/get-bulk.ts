import type { Deps } from '#core/deps';
import type { Page } from '#core/http/handler';
import { ownedApp } from '#core/domain/ownership';
import type { ListSubscriptionsInput } from './schemas';
import { subscriptionView } from './subscription-view';

/** An app has a handful of tiers: one page holds them all, oldest first. */
export async function listSubscriptions(deps: Deps, input: ListSubscriptionsInput & { teamId: string }): Promise<Page<ReturnType<typeof subscriptionView>>> {
  await ownedApp(deps, input.teamId, input.app_id);
  const subscriptions = await deps.repos.subscriptions.listByApp(input.app_id);
  return { items: subscriptions.map(subscriptionView), nextCursor: null };
}
