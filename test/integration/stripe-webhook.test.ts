import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import Stripe from 'stripe';
import { newId } from '#core/ids';
import type { License } from '#data/model/license';
import type { Subscription } from '#data/model/subscription';
import { firstOnly, loseAnswers } from '../support/dynamo-faults';
import { request, startTestServer, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { committedDocument, documentValidator } from '../support/openapi';
import { createOwner, type Owner } from '../support/owners';
import { connectStripe, postStripeEvent, startStripeStandIn, stripeEvent, type LineItems, type StripeStandIn } from '../support/stripe';
import * as licenses from '#data/license.repo';

/**
 * POST /stripe/webhook/<app_id> against the local server and DynamoDB Local,
 * with Stripe's API answered by a stand-in on loopback (STRIPE_API_URL) and
 * every event signed by the `stripe` package's own test signer.
 */
const secret = 'whsec_webhooktestsecret0123456789abcdef';
const apiKey = 'rk_test_webhooktestkey0123456789abcdef';
const validator = documentValidator(committedDocument());
const webhookPath = '/stripe/webhook/{app_id}';

const lineItems: LineItems = new Map();
let stripe: StripeStandIn;
let env: TestServer;
let owner: Owner;
let pro: Subscription;
let basic: Subscription;

beforeAll(async () => {
  stripe = await startStripeStandIn(lineItems);
  env = await startTestServer({ config: { stripeApiUrl: stripe.url } });
  owner = await createOwner(env.deps);
  [pro, basic] = await Promise.all([seedSubscription(env.deps, owner, { name: 'Pro', level: 2 }), seedSubscription(env.deps, owner, { name: 'Basic', level: 1 })]);
  await connectStripe(env, owner, {
    webhook_secret: secret,
    api_key: apiKey,
    prices: {
      price_proYearly: { subscription_id: pro.subscription_id, duration_unit: 'years', duration_value: 1, max_devices: 2, features: ['sync'], hwid_lock: true },
      price_basicMonthly: { subscription_id: basic.subscription_id, duration_unit: 'months', duration_value: 1 },
    },
  });
}, 60_000);
afterAll(async () => {
  await env?.close();
  await stripe?.close();
});

const send = async (event: Record<string, unknown>, options: Parameters<typeof postStripeEvent>[4] = {}, signingSecret = secret) => {
  const answer = await postStripeEvent(env, owner.app_id, event, signingSecret, options);
  expect(validator.answerProblems(webhookPath, answer.status, answer.headers, answer.body)).toEqual([]);
  return answer;
};

/** Every item of the test's table, in key order. */
async function snapshot(): Promise<string> {
  const { Items } = await env.deps.table.doc.send(new ScanCommand({ TableName: env.config.tableName, ConsistentRead: true }));
  return JSON.stringify((Items ?? []).sort((a, b) => `${a.pk}${a.sk}`.localeCompare(`${b.pk}${b.sk}`)));
}

/** A completed Checkout Session whose line items the stand-in answers. */
function checkout(items: { price: string; quantity: number }[], extra: Record<string, unknown> = {}) {
  const session = `cs_test_${newId().replaceAll('-', '')}`;
  lineItems.set(session, items);
  const object = { id: session, object: 'checkout.session', customer: `cus_${newId().slice(0, 8)}`, customer_details: { email: 'buyer@example.com' }, payment_intent: `pi_${newId().slice(0, 12)}`, subscription: null, invoice: null, ...extra };
  return { session, object, event: stripeEvent(`evt_${newId().replaceAll('-', '')}`, 'checkout.session.completed', object) };
}

const licensesOf = async (session: string): Promise<Record<string, any>[]> => {
  const answer = await env.post('/integration/stripe/licenses', { app_id: owner.app_id, checkout_session: session }, owner.auth);
  expect(answer.status).toBe(200);
  return answer.body.data;
};

/** Licenses of the application tagged `stripe` with this session in their metadata, read from the table itself. */
async function storedLicensesOf(session: string): Promise<License[]> {
  const { Items } = await env.deps.table.doc.send(new ScanCommand({ TableName: env.config.tableName, ConsistentRead: true }));
  return (Items ?? []).filter((item) => item.sk === 'LIC' && item.metadata?.stripe_checkout_session === session) as License[];
}

describe('the signature', () => {
  it('refuses a wrong secret, a missing or malformed header and a stale timestamp with 400, changing nothing', async () => {
    const { event } = checkout([{ price: 'price_proYearly', quantity: 1 }]);
    const before = await snapshot();
    for (const answer of [
      await send(event, {}, 'whsec_anothersecretanothersecret0000'),
      await send(event, { signature: null }),
      await send(event, { signature: 't=1,v1=00' }),
      await send(event, { timestamp: Math.floor(Date.now() / 1000) - 301 }),
    ]) {
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ error: expect.stringContaining('Stripe-Signature'), error_code: 'INVALID_INPUT' });
    }
    const tampered = await env.post(`/stripe/webhook/${owner.app_id}`, JSON.stringify({ ...event, id: 'evt_other' }), {
      'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload: JSON.stringify(event), secret }),
    });
    expect(tampered.status).toBe(400);
    expect(await snapshot()).toBe(before);
    expect(stripe.requests).toEqual([]);
  });

  it('answers an application without a Stripe connection, or no application id, as an unverifiable signature', async () => {
    const stranger = await createOwner(env.deps);
    const { event } = checkout([{ price: 'price_proYearly', quantity: 1 }]);
    expect((await postStripeEvent(env, stranger.app_id, event, secret)).status).toBe(400);
    expect((await postStripeEvent(env, 'not-a-uuid', event, secret)).status).toBe(400);
    expect((await request(env.server.url, `/stripe/webhook/${owner.app_id}`, 'GET', undefined)).status).toBe(405);
    expect((await request(env.server.url, `/stripe/webhook/${owner.app_id}`, 'OPTIONS', undefined)).status).toBe(405);
  });
});

describe('what the route answers besides', () => {
  it('answers a body over 256 KiB 413 before verifying it', async () => {
    const { event } = checkout([{ price: 'price_proYearly', quantity: 1 }], { padding: 'x'.repeat(300 * 1024) });
    expect(await send(event)).toMatchObject({ status: 413, body: { error_code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('answers 429 with Retry-After over its own throttle, per application', async () => {
    const throttled = await startTestServer({ inboundRateLimit: { ratePerSecond: 0.001, burst: 1 } });
    try {
      const { event } = checkout([{ price: 'price_proYearly', quantity: 1 }]);
      expect((await postStripeEvent(throttled, owner.app_id, event, secret)).status).toBe(400);
      const refused = await postStripeEvent(throttled, owner.app_id, event, secret);
      expect(validator.answerProblems(webhookPath, refused.status, refused.headers, refused.body)).toEqual([]);
      expect(refused).toMatchObject({ status: 429, body: { error_code: 'RATE_LIMITED' } });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await postStripeEvent(throttled, newId(), event, secret)).status).toBe(400);
    } finally {
      await throttled.close();
    }
  });

  it('answers 500 and makes nothing when Stripe refuses to list the line items, so that Stripe sends the event again', async () => {
    const { session, event } = checkout([{ price: 'price_proYearly', quantity: 1 }]);
    lineItems.delete(session);
    const before = await snapshot();
    expect(await send(event)).toMatchObject({ status: 500, body: { error_code: 'SERVER_ERROR' } });
    expect(await snapshot()).toBe(before);
    expect(env.logs.lines.filter((line) => line.includes(session))).toEqual([expect.stringContaining('StripeInvalidRequestError resource_missing status 404')]);
    lineItems.set(session, [{ price: 'price_proYearly', quantity: 1 }]);
    expect((await send(event)).status).toBe(200);
    expect(await storedLicensesOf(session)).toHaveLength(1);
  });
});

describe('checkout.session.completed', () => {
  it('makes one license per unit of each mapped price, with the metadata and the stripe tag, listing the line items with the restricted key', async () => {
    const { session, object, event } = checkout([
      { price: 'price_proYearly', quantity: 3 },
      { price: 'price_unmapped1', quantity: 5 },
      { price: 'price_basicMonthly', quantity: 1 },
    ]);
    const answer = await send(event);
    expect(answer).toMatchObject({ status: 200, body: { received: true } });
    const licenses = await licensesOf(session);
    expect(licenses.map((license) => license.subscription_id).sort()).toEqual([pro, pro, pro, basic].map((tier) => tier.subscription_id).sort());
    const proLicense = licenses.find((license) => license.subscription_id === pro.subscription_id)!;
    expect(proLicense).toMatchObject({
      app_id: owner.app_id,
      status: 'active',
      expires_at: null,
      initial_duration: 365 * 86400,
      hwid_lock: true,
      max_devices: 2,
      features: ['sync'],
      tags: ['stripe'],
      metadata: { stripe_customer: object.customer, stripe_checkout_session: session, email: 'buyer@example.com' },
      email: 'buyer@example.com',
    });
    expect(licenses.find((license) => license.subscription_id === basic.subscription_id)).toMatchObject({ initial_duration: 30 * 86400, hwid_lock: false });
    expect(stripe.requests.filter((request) => request.path === `/v1/checkout/sessions/${session}/line_items`).map((request) => request.authorization)).toEqual([
      `Bearer ${apiKey}`,
      `Bearer ${apiKey}`,
    ]);
  });

  it('gives the licenses the customer email of the session, lower-cased, and none when it is no address', async () => {
    const cases: [Record<string, unknown>, string | undefined][] = [
      [{ customer_details: { email: ' Pat.Buyer@Example.COM ' } }, 'pat.buyer@example.com'],
      [{ customer_details: { email: null }, customer_email: 'Quinn@Example.org' }, 'quinn@example.org'],
      [{ customer_details: null, customer_email: 'Rae@Example.net' }, 'rae@example.net'],
      [{ customer_details: { email: 'not an address' } }, undefined],
      [{ customer_details: null, customer_email: null }, undefined],
    ];
    for (const [extra, email] of cases) {
      const { session, event } = checkout([{ price: 'price_basicMonthly', quantity: 2 }], extra);
      expect((await send(event)).status).toBe(200);
      const made = await licensesOf(session);
      expect(made.map((license) => license.email)).toEqual([email, email]);
    }
  });

  it('makes exactly 3 licenses for 3 units however many times the event is sent, one after another and all at once', async () => {
    const { session, event } = checkout([{ price: 'price_proYearly', quantity: 3 }]);
    for (let sent = 0; sent < 3; sent++) expect((await send(event)).status).toBe(200);
    const racing = await Promise.all(Array.from({ length: 8 }, () => send(event)));
    expect(racing.map((answer) => answer.status)).toEqual(Array(8).fill(200));
    expect(await storedLicensesOf(session)).toHaveLength(3);
    expect(await licensesOf(session)).toHaveLength(3);
  });

  it('makes exactly 3 licenses when the same event races from its first delivery on', async () => {
    const { session, event } = checkout([{ price: 'price_proYearly', quantity: 3 }]);
    const racing = await Promise.all(Array.from({ length: 8 }, () => send(event)));
    expect(racing.map((answer) => answer.status)).toEqual(Array(8).fill(200));
    expect(await storedLicensesOf(session)).toHaveLength(3);
  });

  it('makes exactly 3 licenses when DynamoDB applied the write and its answer was lost, and when Stripe sends the event again', async () => {
    const faults = loseAnswers(env.client, 'TransactWriteItemsCommand', firstOnly);
    const { session, event } = checkout([{ price: 'price_proYearly', quantity: 3 }]);
    expect((await send(event)).status).toBe(200);
    expect(faults.lost()).toBe(1);
    expect((await send(event)).status).toBe(200);
    expect(await storedLicensesOf(session)).toHaveLength(3);
  });

  it('answers 200 and changes nothing for a session of unmapped prices only, and for event types it does not handle', async () => {
    const { session, event } = checkout([{ price: 'price_unmapped1', quantity: 2 }]);
    const before = await snapshot();
    expect(await send(event)).toMatchObject({ status: 200, body: { received: true } });
    expect(await send(stripeEvent(`evt_${newId().slice(0, 8)}`, 'customer.created', { id: 'cus_1', object: 'customer' }))).toMatchObject({ status: 200, body: { received: true } });
    expect(await snapshot()).toBe(before);
    expect(await licensesOf(session)).toEqual([]);
  });
});

/** A subscription bought through Checkout: its licenses, one of them used (activated now, expiring in 30 days). */
async function subscribed(units = 2) {
  const subscription = `sub_${newId().slice(0, 12)}`;
  const invoice = `in_${newId().slice(0, 12)}`;
  const { session, event } = checkout([{ price: 'price_basicMonthly', quantity: units }], { subscription, payment_intent: null, invoice });
  expect((await send(event)).status).toBe(200);
  const [used, ...unused] = await storedLicensesOf(session);
  const activated = new Date();
  const expiresAt = new Date(activated.getTime() + 30 * 86400_000).toISOString();
  await env.deps.table.doc.send(
    new UpdateCommand({
      TableName: env.config.tableName,
      Key: { pk: `LIC#${used!.key}`, sk: 'LIC' },
      UpdateExpression: 'SET first_used_at = :at, expires_at = :expires',
      ExpressionAttributeValues: { ':at': activated.toISOString(), ':expires': expiresAt },
    }),
  );
  return { subscription, invoice, session, used: used!, unused, expiresAt };
}

const stored = async (key: string) => (await licenses.get(env.deps.table, key, owner.team_id))!;

function invoicePaid(subscription: string, periodEnd: Date, shape: 'parent' | 'legacy' = 'parent') {
  const end = Math.floor(periodEnd.getTime() / 1000);
  const owned = shape === 'parent' ? { parent: { type: 'subscription_details', subscription_details: { subscription } } } : { subscription };
  return stripeEvent(`evt_${newId().replaceAll('-', '')}`, 'invoice.paid', {
    id: `in_${newId().slice(0, 12)}`,
    object: 'invoice',
    period_end: Math.floor(Date.now() / 1000),
    lines: { object: 'list', data: [{ id: 'il_1', period: { start: end - 30 * 86400, end } }] },
    ...owned,
  });
}

describe('invoice.paid', () => {
  it('moves a used license’s expiry to the paid period’s end and leaves an unused one its duration', async () => {
    const { subscription, used, unused } = await subscribed();
    const periodEnd = new Date(Date.now() + 60 * 86400_000);
    periodEnd.setMilliseconds(0);
    expect((await send(invoicePaid(subscription, periodEnd))).status).toBe(200);
    expect((await stored(used.key)).expires_at).toBe(periodEnd.toISOString());
    expect(await stored(unused[0]!.key)).toMatchObject({ expires_at: null, initial_duration: 30 * 86400 });
  });

  it('never moves an expiry backwards, and reads the subscription of an invoice of an older API version', async () => {
    const { subscription, used, expiresAt } = await subscribed();
    const earlier = new Date(Date.now() + 10 * 86400_000);
    expect((await send(invoicePaid(subscription, earlier, 'legacy'))).status).toBe(200);
    expect((await stored(used.key)).expires_at).toBe(expiresAt);
    const later = new Date(Date.now() + 90 * 86400_000);
    later.setMilliseconds(0);
    expect((await send(invoicePaid(subscription, later, 'legacy'))).status).toBe(200);
    expect((await stored(used.key)).expires_at).toBe(later.toISOString());
  });

  it('applies an event once: an owner’s change between two deliveries of it stays', async () => {
    const { subscription, used } = await subscribed(1);
    const periodEnd = new Date(Date.now() + 60 * 86400_000);
    periodEnd.setMilliseconds(0);
    const event = invoicePaid(subscription, periodEnd);
    expect((await send(event)).status).toBe(200);
    const earlier = new Date(Date.now() + 5 * 86400_000).toISOString();
    const current = await stored(used.key);
    await licenses.replaceExpiry(env.deps.table, { before: current, after: { expires_at: earlier, initial_duration: current.initial_duration } });
    expect((await send(event)).status).toBe(200);
    expect((await stored(used.key)).expires_at).toBe(earlier);
  });
});

describe('cancellation and refunds', () => {
  it('pauses the licenses of a deleted subscription, and only those', async () => {
    const cancelled = await subscribed();
    const kept = await subscribed();
    const event = stripeEvent(`evt_${newId().slice(0, 12)}`, 'customer.subscription.deleted', { id: cancelled.subscription, object: 'subscription', status: 'canceled' });
    expect((await send(event)).status).toBe(200);
    for (const license of [cancelled.used, ...cancelled.unused]) expect((await stored(license.key)).status).toBe('paused');
    for (const license of [kept.used, ...kept.unused]) expect((await stored(license.key)).status).toBe('active');
  });

  it('pauses what a fully refunded payment bought; a partial refund changes nothing', async () => {
    const { session, object, event } = checkout([{ price: 'price_proYearly', quantity: 2 }]);
    expect((await send(event)).status).toBe(200);
    const charge = { id: `ch_${newId().slice(0, 12)}`, object: 'charge', amount: 9900, payment_intent: object.payment_intent };
    const before = await snapshot();
    expect((await send(stripeEvent(`evt_${newId().slice(0, 12)}`, 'charge.refunded', { ...charge, amount_refunded: 1000, refunded: false }))).status).toBe(200);
    expect(await snapshot()).toBe(before);
    expect((await send(stripeEvent(`evt_${newId().slice(0, 12)}`, 'charge.refunded', { ...charge, amount_refunded: 9900, refunded: true }))).status).toBe(200);
    expect((await storedLicensesOf(session)).map((license) => license.status)).toEqual(['paused', 'paused']);
  });

  it('pauses a subscription’s licenses when a fully refunded charge of an older API version names the first invoice', async () => {
    const { invoice, used, unused } = await subscribed(2);
    expect((await stored(used.key)).metadata).toMatchObject({ stripe_subscription: expect.stringMatching(/^sub_/) });
    const charge = { id: `ch_${newId().slice(0, 12)}`, object: 'charge', amount: 1900, amount_refunded: 1900, refunded: true, payment_intent: `pi_${newId().slice(0, 12)}`, invoice };
    expect((await send(stripeEvent(`evt_${newId().slice(0, 12)}`, 'charge.refunded', charge))).status).toBe(200);
    for (const license of [used, ...unused]) expect((await stored(license.key)).status).toBe('paused');
  });

  it('never touches a license made outside Stripe', async () => {
    const other = await seedLicense(env.deps, pro);
    const event = stripeEvent(`evt_${newId().slice(0, 12)}`, 'customer.subscription.deleted', { id: 'sub_unknown', object: 'subscription' });
    expect((await send(event)).status).toBe(200);
    expect((await stored(other.key)).status).toBe('active');
  });
});
