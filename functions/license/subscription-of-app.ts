import type { Deps } from '#core/deps';
import { invalidInput } from '#core/errors';
import { ownedApp, ownedSubscription } from '#core/ownership';
import type { Subscription } from '#data/subscription.repo';

/**
 * The subscription a license is given: the owner's (else ACCESS_DENIED or
 * SUBSCRIPTION_NOT_FOUND) and of the license's application (else INVALID_INPUT).
 */
export async function subscriptionForApp(deps: Pick<Deps, 'repos'>, teamId: string, appId: string, subscriptionId: string): Promise<Subscription> {
  const subscription = await ownedSubscription(deps, teamId, subscriptionId);
  if (subscription.app_id !== appId) throw invalidInput('subscription_id: must belong to the license’s application');
  return subscription;
}

/** Create and create-bulk: the app first (APP_NOT_FOUND, ACCESS_DENIED), then its subscription. */
export async function appAndSubscription(deps: Pick<Deps, 'repos'>, teamId: string, appId: string, subscriptionId: string): Promise<Subscription> {
  await ownedApp(deps, teamId, appId);
  return subscriptionForApp(deps, teamId, appId, subscriptionId);
}
