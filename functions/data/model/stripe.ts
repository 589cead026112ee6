import * as z from 'zod/mini';

/** What one Stripe price makes: a license of this tier for this long (docs/stripe.md, "The price map"). */
export const priceMappingSchema = z.lazy(() =>
  z.object({
    subscription_id: z.string(),
    duration_unit: z.enum(['seconds', 'minutes', 'hours', 'days', 'weeks', 'months', 'years']),
    duration_value: z.int(),
    max_devices: z.optional(z.int()),
    features: z.optional(z.array(z.string())),
    hwid_lock: z.optional(z.boolean()),
  }),
);
export type PriceMapping = z.infer<typeof priceMappingSchema>;

/** An application's Stripe connection as stored: both secrets only as the key vault's ciphertexts. */
export const stripeConnectionSchema = z.lazy(() =>
  z.object({
    app_id: z.string(),
    team_id: z.string(),
    webhook_secret_ciphertext: z.string(),
    api_key_ciphertext: z.string(),
    /** The secret's first and last characters, which is all `/integration/stripe/get` shows of it. */
    webhook_secret_hint: z.string(),
    prices: z.record(z.string(), priceMappingSchema),
    created_at: z.string(),
    updated_at: z.string(),
  }),
);
export type StripeConnection = z.infer<typeof stripeConnectionSchema>;

/** The keys of the licenses made for one Stripe object (keys.stripeLicenses), oldest first; absent: none. */
export const stripeLicenseKeysSchema = z.lazy(() => z.optional(z.array(z.string())));

/** Where a Checkout Session's licenses came from, recorded with each Stripe object that session made. */
export interface StripeOrigin {
  checkoutSession: string;
  /** The session's Stripe ids the licenses are found by later: the session's own, its subscription's, payment's and first invoice's. */
  stripeIds: string[];
}

/** How long the mark of an applied event is kept: Stripe sends an event again for 3 days at most, and keeps events 30 days. */
export const stripeEventMarkDays = 90;

/** A Stripe event applied (part of it, for a big session): the mark's put fails when it was applied before. */
export type EventWrite = 'applied' | 'already_applied';
