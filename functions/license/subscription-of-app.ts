import type { Deps } from '#core/deps';
import { invalidInput } from '#core/http/errors';
import { ownedApp, ownedSubscription } from '#core/domain/ownership';
import type { Subscription } from '#data/model/subscription';
import { hwidResetDefaults } from './new-license';

/**
 * The subscription a license is given: the owner's (else ACCESS_DENIED or
 * SUBSCRIPTION_NOT_FOUND) and of the license's application (else INVALID_INPUT).
 */
export async function subscriptionForApp(deps: Pick<Deps, 'table'>, teamId: string, appId: string, subscriptionId: string): Promise<Subscription> {
  const subscription = await ownedSubscription(deps, teamId, subscriptionId);
  if (subscription.app_id !== appId) throw invalidInput('subscription_id: must belong to the license’s application');
  return subscription;
}

export interface HwidResetRules {
  hwid_reset_allowed: boolean;
  hwid_reset_interval: number;
}

/**
 * Create and create-bulk: the app first (APP_NOT_FOUND, ACCESS_DENIED), then
 * its subscription, and the reset rules of the new licenses: the request's,
 * else the application's defaults, else the service's.
 */
export async function appAndSubscription(
  deps: Pick<Deps, 'table'>,
  input: { teamId: string; app_id: string; subscription_id: string } & Partial<HwidResetRules>,
): Promise<{ subscription: Subscription; resetRules: HwidResetRules }> {
  const app = await ownedApp(deps, input.teamId, input.app_id);
  const subscription = await subscriptionForApp(deps, input.teamId, input.app_id, input.subscription_id);
  const resetRules = {
    hwid_reset_allowed: input.hwid_reset_allowed ?? app.default_hwid_reset_allowed ?? hwidResetDefaults.hwid_reset_allowed,
    hwid_reset_interval: input.hwid_reset_interval ?? app.default_hwid_reset_interval ?? hwidResetDefaults.hwid_reset_interval,
  };
  return { subscription, resetRules };
}
