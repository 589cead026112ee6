import type { Subscription } from '#data/subscription.repo';

/** The subscription record of docs/management-api.md (Subscriptions): the owning team stays internal. */
export function subscriptionView(subscription: Subscription) {
  const { team_id: _team, ...view } = subscription;
  return view;
}
