import type { Deps } from '#core/deps';
import { customerView, type CustomerLicense } from '#core/domain/license-view';
import type { RequestInfo } from '#core/http/handler';
import * as licenses from '#data/license.repo';
import { licensesWithEmail } from '#data/lookup.repo';
import type { License } from '#data/model/license';
import type { PortalSession } from '#data/model/portal';
import * as stripe from '#data/stripe.repo';
import * as subscriptions from '#data/subscription.repo';
import { stripeCustomerOf } from '../integration/stripe-customer';
import { portalOf } from './portal-app';
import { signedIn } from './session';

/**
 * The licenses a session reaches: those of its application that carry its email now. The lookup
 * entries follow licenses a moment late, so each license read is checked again: one whose email
 * was just changed or removed is not reached.
 */
export async function licensesOfSession(deps: Deps, session: PortalSession): Promise<License[]> {
  const found = await licenses.readItems(deps.table, await licensesWithEmail(deps.table, session.app_id, session.email));
  return found.filter((license) => isSessions(license, session));
}

/** A license of the session's application that carries the session's email, as it stands. */
export function isSessions(license: License, session: PortalSession): boolean {
  return license.app_id === session.app_id && license.email === session.email;
}

/**
 * `POST /portal/licenses`: the signed-in customer's licenses of the application, as customers see them, each saying
 * whether /portal/billing opens a page for it. The Stripe connection is read only when a license has a Stripe customer.
 */
export async function customerLicenses(deps: Deps, _input: unknown, request: RequestInfo): Promise<(CustomerLicense & { billing: boolean })[]> {
  const { session } = await signedIn(deps, request);
  await portalOf(deps, session.app_id);
  const owned = await licensesOfSession(deps, session);
  const tiers = await subscriptions.getMany(deps.table, [...new Set(owned.map((license) => license.subscription_id))]);
  const bought = owned.map((license) => stripeCustomerOf(license) !== undefined);
  const connected = bought.includes(true) && (await stripe.getConnection(deps.table, session.app_id)) !== undefined;
  const now = deps.clock.now();
  return owned.map((license, i) => ({ ...customerView(license, tiers.get(license.subscription_id), now), billing: connected && bought[i]! }));
}
