import type Stripe from 'stripe';
import type { Config } from '#core/config';

/**
 * The official `stripe` package, and nothing of Stripe's by hand: it verifies
 * what Stripe sends, lists what a Checkout Session sold and opens a customer's
 * billing page. It is loaded only when Stripe calls or is called (this group's
 * webhook, the portal's /portal/billing): it is most of their code, and a cold
 * start that serves any other route never loads it.
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

/** Stripe refused a call: its type, code and status, never its message, which may quote part of the key. */
function refusal(what: string, error: { type: string; code?: string | undefined; statusCode?: number | undefined }): Error {
  return new Error(`Stripe refused ${what}: ${error.type} ${error.code ?? ''} status ${error.statusCode ?? 'none'}`);
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
    throw refusal(`to list the line items of ${checkoutSession}`, error);
  }
  return items;
}

/** Thrown when Stripe does not open a customer's billing page: the error's message says why, for the owner's log. */
export class BillingRefused extends Error {}

/**
 * The address of a Stripe customer-portal session for `customer`, coming back to `returnUrl` (without one, to the
 * default return address of the owner's Stripe portal settings). A session is Stripe's alone: opening a second one
 * for a retried call changes nothing.
 */
export async function billingPortalUrl(config: Pick<Config, 'stripeApiUrl'>, apiKey: string, customer: string, returnUrl: string | undefined): Promise<string> {
  const Stripe = await stripePackage();
  try {
    const session = await stripeClient(Stripe, config, apiKey).billingPortal.sessions.create({ customer, ...(returnUrl === undefined ? {} : { return_url: returnUrl }) });
    return session.url;
  } catch (error) {
    if (!(error instanceof Stripe.errors.StripeError)) throw error;
    throw new BillingRefused(refusal(`a billing portal session for ${customer}`, error).message);
  }
}
