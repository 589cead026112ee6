import type { Subscription } from '#data/subscription.repo';

/** The subscription record of api-decisions.md: the owning team stays internal. */
export function subscriptionView(subscription: Subscription) {
  const { team_id: _team, ...view } = subscription;
  return view;
}
