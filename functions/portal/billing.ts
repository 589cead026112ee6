import type { Deps } from '#core/deps';
import { describeError } from '#core/logger';
import { ManagementError } from '#core/http/errors';
import type { RequestInfo } from '#core/http/handler';
import { portalLinkOf } from '#core/mail/mailer';
import * as stripe from '#data/stripe.repo';
import { BillingRefused, billingPortalUrl } from '../integration/stripe-api';
import { stripeCustomerOf } from '../integration/stripe-customer';
import { revealSecret } from '../integration/stripe-secrets';
import { ownLicense } from './own-license';

/**
 * `POST /portal/billing` (docs/portal.md#billing): Stripe's own customer portal for the customer who pays for one of
 * the session's licenses, opened with the owner's restricted key. A license with no Stripe customer, or an application
 * no longer connected to Stripe, has no billing here: 404 NO_BILLING. There is no owner switch for it: what the page
 * allows is set in the owner's Stripe account.
 */
export async function customerBilling(deps: Deps, input: { license_key: string }, request: RequestInfo): Promise<{ url: string }> {
  const { session, license } = await ownLicense(deps, request, input.license_key, () => true);
  const customer = stripeCustomerOf(license);
  const connection = customer === undefined ? undefined : await stripe.getConnection(deps.table, session.app_id);
  if (customer === undefined || connection === undefined) throw new ManagementError('NO_BILLING');
  const apiKey = await revealSecret(deps, connection.app_id, connection.api_key_ciphertext);
  const returnUrl = deps.config.portalUrl === undefined ? undefined : portalLinkOf(deps.config.portalUrl, session.app_id);
  try {
    return { url: await billingPortalUrl(deps.config, apiKey, customer, returnUrl) };
  } catch (error) {
    if (!(error instanceof BillingRefused)) throw error;
    // The owner's to fix (the restricted key lacks the permission, or Stripe's customer portal is not set up): the log
    // says which, the customer is told to try later.
    deps.logger.warn('Stripe refused a billing portal session', { app_id: session.app_id, customer: session.email_fingerprint, ...describeError(error) });
    throw new ManagementError('BILLING_UNAVAILABLE');
  }
}
