import type Stripe from 'stripe';
import type { Config } from '#core/config';

/**
 * The official `stripe` package, and nothing of Stripe's by hand: it verifies
 * what Stripe sends and lists what a Checkout Session sold. Only this group
 * imports it, so no other function carries its size, and only when Stripe
 * calls or is called: it is most of the group's code, and a cold start that
 * serves the owner's /integration/stripe routes never loads it.
 */
const stripePackage = () => import('stripe').then((module) => module.default);

/** A priced line of a Checkout Session: its price id (none for ad-hoc lines) and how many were bought. */
export interface LineItem {
  price: string | undefined;
  quantity: number;
}

/** Thrown when Stripe's signature does not verify: the header is missing, malformed, stale (300 s) or signed with another secret. */
export class InvalidStripeSignature extends Error {}

/** The event `payload` is, when `header` signs it with `secret` within Stripe's default tolerance (`stripe.webhooks.constructEvent`). */
export async function verifiedEvent(payload: Uint8Array, header: string | undefined, secret: string): Promise<Stripe.Event> {
  const Stripe = await stripePackage();
  try {
    return Stripe.webhooks.constructEvent(Buffer.from(payload), header ?? '', secret);
  } catch (error) {
    throw new InvalidStripeSignature(error instanceof Error ? error.message : String(error));
  }
}

/**
 * A client on the owner's restricted key. `STRIPE_API_URL` (Config.stripeApiUrl) points it at another host: a
 * test's stand-in on loopback, or a local one. Two retries: Stripe makes list calls safe to repeat.
 */
function stripeClient(Stripe: Awaited<ReturnType<typeof stripePackage>>, config: Pick<Config, 'stripeApiUrl'>, apiKey: string): Stripe {
  const url = config.stripeApiUrl;
  return new Stripe(apiKey, {
    maxNetworkRetries: 2,
    timeout: 10_000,
    telemetry: false,
    ...(url ? { host: url.hostname, port: url.port || (url.protocol === 'https:' ? 443 : 80), protocol: url.protocol === 'https:' ? 'https' : 'http' } : {}),
  });
}

/**
 * Every line item of a Checkout Session (`checkout.session.completed` carries none). A refusal by Stripe becomes
 * an error naming its type, code and status only: Stripe's own message may quote part of the key.
 */
export async function listLineItems(config: Pick<Config, 'stripeApiUrl'>, apiKey: string, checkoutSession: string): Promise<LineItem[]> {
  const Stripe = await stripePackage();
  const items: LineItem[] = [];
  try {
    for await (const item of stripeClient(Stripe, config, apiKey).checkout.sessions.listLineItems(checkoutSession, { limit: 100 })) {
      items.push({ price: item.price?.id, quantity: item.quantity ?? 1 });
    }
  } catch (error) {
    if (!(error instanceof Stripe.errors.StripeError)) throw error;
    throw new Error(`Stripe refused to list the line items of ${checkoutSession}: ${error.type} ${error.code ?? ''} status ${error.statusCode ?? 'none'}`);
  }
  return items;
}
