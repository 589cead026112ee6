import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import type { TestServer } from './env';
import type { Owner } from './owners';

/** What the stand-in answers for each Checkout Session: its line items' prices and quantities. */
export type LineItems = Map<string, { price: string; quantity: number }[]>;

export interface StripeStandIn {
  /** For `STRIPE_API_URL` (Config.stripeApiUrl). */
  url: URL;
  /** Every request it answered: path, the key it was made with, and a POST's form fields. */
  requests: { path: string; authorization: string | undefined; form: URLSearchParams }[];
  close(): Promise<void>;
}

/** The customers Stripe's customer portal opens for; a billing portal session for any other is Stripe's 400 for an unknown customer. */
export type BillingCustomers = Set<string>;

const stripeError = (code: string, message: string) => JSON.stringify({ error: { type: 'invalid_request_error', code, message } });

/**
 * Stripe's API on loopback, as much of it as the service calls: the line items
 * of a Checkout Session, paged as Stripe pages them (two to a page, so the
 * package's pagination is exercised), and customer-portal sessions for the
 * `customers` it knows. An unknown session is Stripe's 404.
 */
export async function startStripeStandIn(lineItems: LineItems, customers: BillingCustomers = new Set()): Promise<StripeStandIn> {
  const requests: StripeStandIn['requests'] = [];
  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    let body = '';
    for await (const chunk of request) body += chunk;
    const form = new URLSearchParams(body);
    requests.push({ path: url.pathname, authorization: request.headers.authorization, form });
    response.setHeader('Content-Type', 'application/json');
    if (request.method === 'POST' && url.pathname === '/v1/billing_portal/sessions') {
      const customer = form.get('customer') ?? '';
      if (!customers.has(customer)) {
        response.writeHead(400).end(stripeError('resource_missing', `No such customer: '${customer}'`));
        return;
      }
      const session = { id: `bps_${requests.length}`, object: 'billing_portal.session', customer, return_url: form.get('return_url'), url: `https://billing.stripe.com/p/session/test_${customer}` };
      response.writeHead(200).end(JSON.stringify(session));
      return;
    }
    const match = /^\/v1\/checkout\/sessions\/([^/]+)\/line_items$/.exec(url.pathname);
    const items = match ? lineItems.get(match[1]!) : undefined;
    if (!match || !items) {
      response.writeHead(404).end(stripeError('resource_missing', 'No such checkout.session'));
      return;
    }
    const all = items.map((item, index) => ({ id: `li_${index}`, object: 'item', price: { id: item.price, object: 'price' }, quantity: item.quantity }));
    const after = url.searchParams.get('starting_after');
    const start = after === null ? 0 : all.findIndex((item) => item.id === after) + 1;
    const page = all.slice(start, start + 2);
    response.writeHead(200).end(JSON.stringify({ object: 'list', url: url.pathname, has_more: start + 2 < all.length, data: page }));
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', () => listening()));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}`),
    requests,
    close: () =>
      new Promise<void>((closed) => {
        server.closeAllConnections();
        server.close(() => closed());
      }),
  };
}

/** A Stripe event as Stripe sends it, around `object`. */
export function stripeEvent(id: string, type: string, object: Record<string, unknown>): Record<string, unknown> {
  return { id, object: 'event', api_version: '2026-10-28.endive', created: Math.floor(Date.now() / 1000), type, livemode: false, data: { object } };
}

/** POSTs the event to the application's webhook route, signed with `secret` by the `stripe` package's own test signer. */
export function postStripeEvent(env: TestServer, appId: string, event: Record<string, unknown>, secret: string, options: { timestamp?: number; signature?: string | null } = {}) {
  const payload = JSON.stringify(event);
  const header = Stripe.webhooks.generateTestHeaderString({ payload, secret, ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }) });
  const signature = options.signature === undefined ? header : options.signature;
  return env.post(`/stripe/webhook/${appId}`, payload, signature === null ? {} : { 'stripe-signature': signature });
}

/** Connects the owner's application to Stripe through `/integration/stripe/set`, as an owner does; throws when refused. */
export async function connectStripe(env: TestServer, owner: Owner, connection: { webhook_secret: string; api_key: string; prices: Record<string, Record<string, unknown>> }): Promise<void> {
  const connected = await env.post('/integration/stripe/set', { app_id: owner.app_id, ...connection }, owner.auth);
  if (connected.status !== 200) throw new Error(`Stripe not connected: ${connected.status} ${JSON.stringify(connected.body)}`);
}
