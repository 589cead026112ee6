import type { License } from '#data/model/license';
import { ownEntry } from '#shared/own-keys';

/** The metadata field a Stripe purchase records the buyer's Stripe customer in (docs/stripe.md, "What Stripe's events do"). */
export const stripeCustomerField = 'stripe_customer';

/** Stripe's customer ids: `cus_` and letters and digits. Anything else in the field is no customer billing can open. */
const customerId = /^cus_[A-Za-z0-9]{1,250}$/;

/**
 * The Stripe customer who pays for a license: the one its purchase recorded, or one the owner set in its metadata.
 * None for a guest checkout (recorded as null), a license made otherwise, or a value that is no customer id.
 */
export function stripeCustomerOf(license: Pick<License, 'metadata'>): string | undefined {
  const customer = ownEntry(license.metadata, stripeCustomerField);
  return typeof customer === 'string' && customerId.test(customer) ? customer : undefined;
}
