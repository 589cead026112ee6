import * as z from 'zod/mini';
import { appIdField, maxDevicesField, subscriptionIdField } from '#core/domain/fields';
import { featuresField } from '#shared/entitlements';
import { duration, durationWithinLimit } from '../license/schemas';

/** Shapes of Stripe's ids and secrets (docs/stripe.md): anything else is no value Stripe gave the owner. */
export const stripePatterns = {
  /** The endpoint's signing secret, as the Dashboard and `stripe listen` print it. */
  webhookSecret: /^whsec_[A-Za-z0-9+/=_-]{16,256}$/,
  /** A restricted key, test or live mode: a full secret key (`sk_`) could do far more than list line items. */
  restrictedKey: /^rk_(test|live)_[A-Za-z0-9]{16,256}$/,
  price: /^price_[A-Za-z0-9]{1,250}$/,
  checkoutSession: /^cs_(test|live)_[A-Za-z0-9]{1,250}$/,
} as const;

/** Prices one application may map: more is no catalogue a buyer chooses from. */
export const maxMappedPrices = 100;

/** Strict: a misspelt field in a price's mapping would otherwise make licenses without it. */
export const priceMappingField = z.lazy(() =>
  z
    .strictObject({
      subscription_id: subscriptionIdField,
      ...duration,
      max_devices: z.optional(maxDevicesField),
      features: z.optional(featuresField),
      hwid_lock: z.optional(z.boolean()),
    })
    .check(durationWithinLimit),
);

const priceId = z.lazy(() => z.string().check(z.regex(stripePatterns.price, 'must be a Stripe price id (price_…)')));

export const setSchema = z.lazy(() =>
  z.object({
    app_id: appIdField,
    webhook_secret: z.optional(z.string().check(z.regex(stripePatterns.webhookSecret, 'must be the signing secret of a Stripe webhook endpoint (whsec_…)'))),
    api_key: z.optional(z.string().check(z.regex(stripePatterns.restrictedKey, 'must be a Stripe restricted key (rk_test_… or rk_live_…)'))),
    prices: z.record(priceId, priceMappingField).check(
      z.refine((prices) => Object.keys(prices).length <= maxMappedPrices, `must map at most ${maxMappedPrices} prices`),
    ),
  }),
);

export const appIdSchema = z.lazy(() => z.object({ app_id: appIdField }));

export const licensesSchema = z.lazy(() =>
  z.object({
    app_id: appIdField,
    checkout_session: z.string().check(z.regex(stripePatterns.checkoutSession, 'must be a Stripe Checkout Session id (cs_test_… or cs_live_…)')),
  }),
);
