import { newId } from '#core/ids';
import { portalLinkOf } from '#core/mail/mailer';
import { systemClock } from '#shared/clock';
import { seedSubscription } from '../support/fixtures';
import type { Owner } from '../support/owners';
import { bearer, licensesOf, portalOwner, signedInToken, withPortalServer } from '../support/portal';
import { connectStripe, postStripeEvent, startStripeStandIn, stripeEvent, type BillingCustomers, type LineItems, type StripeStandIn } from '../support/stripe';

/**
 * `POST /portal/billing` (docs/portal.md#billing): Stripe's customer portal for the customer who bought a license,
 * opened with the owner's restricted key; nothing for a license Stripe did not sell.
 */
const secret = 'whsec_portalbillingsecret0123456789abc';
const apiKey = 'rk_test_portalbilling0123456789abcdef';
const portalUrl = 'https://portal.example.com/portal/';
const lineItems: LineItems = new Map();
const customers: BillingCustomers = new Set();
let stripe: StripeStandIn;
beforeAll(async () => {
  stripe = await startStripeStandIn(lineItems, customers);
});
afterAll(() => stripe?.close());
const { env, events } = withPortalServer(systemClock, () => ({ stripeApiUrl: stripe.url, portalUrl }));

/** An owner whose portal is on and whose application sells the tier `price_pro` through Stripe. */
async function sellingOwner(): Promise<Owner> {
  const owner = await portalOwner(env);
  const tier = await seedSubscription(env.deps, owner, { name: 'Pro', level: 2 });
  await connectStripe(env, owner, { webhook_secret: secret, api_key: apiKey, prices: { price_pro: { subscription_id: tier.subscription_id, duration_unit: 'years', duration_value: 1 } } });
  return owner;
}

/** One license bought by `email` through a completed Checkout Session (`customer` null: a guest checkout); its key. */
async function bought(owner: Owner, email: string, customer: string | null): Promise<string> {
  const session = `cs_test_${newId().replaceAll('-', '')}`;
  lineItems.set(session, [{ price: 'price_pro', quantity: 1 }]);
  const object = { id: session, object: 'checkout.session', customer, customer_details: { email }, payment_intent: `pi_${newId().slice(0, 12)}`, subscription: null, invoice: null };
  const delivered = await postStripeEvent(env, owner.app_id, stripeEvent(`evt_${newId().replaceAll('-', '')}`, 'checkout.session.completed', object), secret);
  expect(delivered.status).toBe(200);
  await events.drain();
  const [license] = (await env.post('/integration/stripe/licenses', { app_id: owner.app_id, checkout_session: session }, owner.auth)).body.data;
  return license.key as string;
}

const billing = (token: string, license_key: string) => env.post('/portal/billing', { license_key }, bearer(token));
const billingFlags = async (token: string) =>
  Object.fromEntries((await env.post('/portal/licenses', {}, bearer(token))).body.data.map((license: { key: string; billing: boolean }) => [license.key, license.billing]));
const sessionsOpened = () => stripe.requests.filter((request) => request.path === '/v1/billing_portal/sessions');

describe("a customer's billing", () => {
  it("opens Stripe's customer portal for the license's buyer, with the owner's key, back to the portal; nothing for a license Stripe did not sell", async () => {
    const owner = await sellingOwner();
    const customer = `cus_${newId().slice(0, 8)}`;
    customers.add(customer);
    const fromStripe = await bought(owner, 'ann@example.com', customer);
    const [madeByOwner] = await licensesOf(env, events, owner, 'ann@example.com');
    const token = await signedInToken(env, owner, 'ann@example.com');

    expect(await billingFlags(token)).toEqual({ [fromStripe]: true, [madeByOwner!.key]: false });

    const opened = sessionsOpened().length;
    const answer = await billing(token, fromStripe);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: true, data: { url: `https://billing.stripe.com/p/session/test_${customer}` } });
    const [call, ...more] = sessionsOpened().slice(opened);
    expect(more).toEqual([]);
    expect(call!.authorization).toBe(`Bearer ${apiKey}`);
    expect(Object.fromEntries(call!.form)).toEqual({ customer, return_url: portalLinkOf(portalUrl, owner.app_id) });

    const none = await billing(token, madeByOwner!.key);
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ error: expect.any(String), error_code: 'NO_BILLING' });
    expect(sessionsOpened().length).toBe(opened + 1);
  });

  it('has nothing for a guest checkout, nor once the application is no longer connected to Stripe', async () => {
    const owner = await sellingOwner();
    const customer = `cus_${newId().slice(0, 8)}`;
    customers.add(customer);
    const guest = await bought(owner, 'bob@example.com', null);
    const paying = await bought(owner, 'bob@example.com', customer);
    const token = await signedInToken(env, owner, 'bob@example.com');
    expect(await billingFlags(token)).toEqual({ [guest]: false, [paying]: true });
    expect((await billing(token, guest)).body).toMatchObject({ error_code: 'NO_BILLING' });

    expect((await env.post('/integration/stripe/delete', { app_id: owner.app_id }, owner.auth)).status).toBe(200);
    expect(await billingFlags(token)).toEqual({ [guest]: false, [paying]: false });
    const disconnected = await billing(token, paying);
    expect(disconnected.status).toBe(404);
    expect(disconnected.body).toMatchObject({ error_code: 'NO_BILLING' });
  });

  it("answers 502 BILLING_UNAVAILABLE when Stripe refuses, and logs Stripe's reason without the customer's address", async () => {
    const owner = await sellingOwner();
    const unknownToStripe = `cus_${newId().slice(0, 8)}`;
    const key = await bought(owner, 'cy@example.com', unknownToStripe);
    const token = await signedInToken(env, owner, 'cy@example.com');
    const logged = env.logs.lines.length;

    const refused = await billing(token, key);
    expect(refused.status).toBe(502);
    expect(refused.body).toEqual({ error: 'Stripe did not open the billing page; try again later, or ask the seller', error_code: 'BILLING_UNAVAILABLE' });
    const lines = env.logs.lines.slice(logged).map((line) => JSON.parse(line) as Record<string, unknown>);
    const warning = lines.find((line) => line.message === 'Stripe refused a billing portal session');
    expect(warning).toMatchObject({ level: 'warn', app_id: owner.app_id, customer: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(JSON.stringify(warning)).toMatch(/StripeInvalidRequestError resource_missing status 400/);
    expect(JSON.stringify(lines)).not.toContain('cy@example.com');
    expect(JSON.stringify(lines)).not.toContain(apiKey);
  });

  it('takes a session and a well-formed body', async () => {
    const owner = await sellingOwner();
    const key = await bought(owner, 'dee@example.com', null);
    const signedOut = await env.post('/portal/billing', { license_key: key });
    expect(signedOut.status).toBe(401);
    expect(signedOut.body).toMatchObject({ error_code: 'INVALID_SESSION' });
    const token = await signedInToken(env, owner, 'dee@example.com');
    for (const body of [{}, { license_key: key, extra: true }, { license_key: 42 }]) {
      const refused = await env.post('/portal/billing', body, bearer(token));
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error_code: 'INVALID_INPUT' });
    }
  });
});
