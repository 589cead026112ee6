import type { Subscription } from '#data/model/subscription';

/** The subscription record of docs/management-api.md (Subscriptions): the owning team stays internal. */
export function subscriptionView(subscription: Subscription) {
  const { team_id: _team, ...view } = subscription;
  // Tiers made before entitlements existed have none of them stored: none, none and no grace.
  return { ...view, features: view.features ?? [], usage_limits: view.usage_limits ?? {}, grace_seconds: view.grace_seconds ?? 0 };
}
