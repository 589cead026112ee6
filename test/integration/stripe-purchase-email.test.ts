import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { newId } from '#core/ids';
import type { Mailer } from '#core/mail/mailer';
import { startTestServer, type TestServer } from '../support/env';
import { firstOnly, loseAnswers } from '../support/dynamo-faults';
import { seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';
import { connectStripe, postStripeEvent, startStripeStandIn, stripeEvent, type LineItems, type StripeStandIn } from '../support/stripe';

/**
 * A Stripe purchase emails the buyer their keys and the portal's address when
 * the application's portal is on (docs/portal.md#what-a-stripe-purchase-sends):
 * once per Checkout Session however Stripe delivers the event, and again on a
 * redelivery when sending failed.
 */
const secret = 'whsec_purchasemailsecret0123456789abcdef';
const portalUrl = 'https://portal.example.com/portal/';
const lineItems: LineItems = new Map();
let stripe: StripeStandIn;
let env: TestServer;
let owner: Owner;

beforeAll(async () => {
  stripe = await startStripeStandIn(lineItems);
  env = await startTestServer({ config: { stripeApiUrl: stripe.url, portalUrl } });
  owner = await createOwner(env.deps);
  const tier = await seedSubscription(env.deps, owner, { name: 'Pro', level: 2 });
  await connectStripe(env, owner, { webhook_secret: secret, api_key: 'rk_test_purchasemail0123456789abcdef', prices: { price_pro: { subscription_id: tier.subscription_id, duration_unit: 'years', duration_value: 1 } } });
}, 60_000);
afterAll(async () => {
  await env?.close();
  await stripe?.close();
});

const portal = (settings: Record<string, unknown>) => env.post('/app/settings', { app_id: owner.app_id, portal: settings }, owner.auth);

/** A completed Checkout Session of `quantity` units, bought by `email`. */
function purchase(quantity: number, email = `buyer-${newId().slice(0, 8)}@example.com`) {
  const session = `cs_test_${newId().replaceAll('-', '')}`;
  lineItems.set(session, [{ price: 'price_pro', quantity }]);
  const object = { id: session, object: 'checkout.session', customer: `cus_${newId().slice(0, 8)}`, customer_details: { email }, payment_intent: `pi_${newId().slice(0, 12)}`, subscription: null, invoice: null };
  return { session, email, event: stripeEvent(`evt_${newId().replaceAll('-', '')}`, 'checkout.session.completed', object) };
}

const deliver = async (event: Record<string, unknown>) => (await postStripeEvent(env, owner.app_id, event, secret)).status;

/** The messages in the outbox addressed to `email` (the buyers of these tests are unique). */
function messagesTo(email: string): string[] {
  if (!existsSync(env.outbox)) return [];
  return readdirSync(env.outbox)
    .map((file) => readFileSync(join(env.outbox, file), 'utf8'))
    .filter((message) => message.includes(`\r\nTo: ${email}\r\n`));
}

const keysOf = async (session: string): Promise<string[]> => {
  const answer = await env.post('/integration/stripe/licenses', { app_id: owner.app_id, checkout_session: session }, owner.auth);
  expect(answer.status).toBe(200);
  return answer.body.data.map((license: { key: string }) => license.key);
};

describe('the purchase email', () => {
  it('sends the buyer their keys and the portal link once, however often and however concurrently the event comes', async () => {
    expect((await portal({ enabled: true, sender_name: 'Acme "Licensing"', support_url: 'https://acme.example/help' })).status).toBe(200);
    const bought = purchase(2, 'Mixed.Case@Example.com');
    const buyer = 'mixed.case@example.com';

    expect(await deliver(bought.event)).toBe(200);
    expect(await Promise.all([deliver(bought.event), deliver(bought.event), deliver(bought.event)])).toEqual([200, 200, 200]);

    const messages = messagesTo(buyer);
    expect(messages).toHaveLength(1);
    const [message] = messages as [string];
    const keys = await keysOf(bought.session);
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(message).toContain(key);
    expect(message).toContain(`${portalUrl}?app=${owner.app_id}`);
    expect(message).toContain('https://acme.example/help');
    expect(message).toMatch(/^From: "Acme \\"Licensing\\"" </m);
    expect(message).toMatch(/^Subject: Your .* license keys$/m);
  });

  it('sends nothing while the portal is off, nor for a buyer with no address', async () => {
    expect((await portal({ enabled: false })).status).toBe(200);
    const off = purchase(1);
    expect(await deliver(off.event)).toBe(200);
    expect(await keysOf(off.session)).toHaveLength(1);
    expect(messagesTo(off.email)).toEqual([]);

    expect((await portal({ enabled: true })).status).toBe(200);
    const noAddress = purchase(1, 'not an address');
    expect(await deliver(noAddress.event)).toBe(200);
    expect(await keysOf(noAddress.session)).toHaveLength(1);
    expect(messagesTo('not an address')).toEqual([]);
  });

  it('answers 500 when sending failed, keeping the licenses, and Stripe’s redelivery sends the one message', async () => {
    expect((await portal({ enabled: true })).status).toBe(200);
    const bought = purchase(1);
    const working = env.deps.mailer;
    const failing: Mailer = {
      send: () => Promise.reject(new Error('SES refused the message')),
    };
    env.deps.mailer = failing;
    try {
      expect(await deliver(bought.event)).toBe(500);
    } finally {
      env.deps.mailer = working;
    }
    const keys = await keysOf(bought.session);
    expect(keys).toHaveLength(1);
    expect(messagesTo(bought.email)).toEqual([]);

    expect(await deliver(bought.event)).toBe(200);
    expect(await keysOf(bought.session)).toEqual(keys);
    const messages = messagesTo(bought.email);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(keys[0]);
  });

  it('sends the message when the store applied the claim and its answer was lost: the resent claim finds its own', async () => {
    expect((await portal({ enabled: true })).status).toBe(200);
    const bought = purchase(1);
    const faults = loseAnswers(env.client, 'PutItemCommand', firstOnly);

    expect(await deliver(bought.event)).toBe(200);

    expect(faults.lost()).toBe(1);
    expect(messagesTo(bought.email)).toHaveLength(1);
    expect(await deliver(bought.event)).toBe(200);
    expect(messagesTo(bought.email)).toHaveLength(1);
  });
});
