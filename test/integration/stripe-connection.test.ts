import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { newId } from '#core/ids';
import type { Subscription } from '#data/model/subscription';
import { startTestServer, type TestServer } from '../support/env';
import { startTestEvents, type TestEvents } from '../support/events';
import { seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';
import { postStripeEvent, startStripeStandIn, stripeEvent, type LineItems, type StripeStandIn } from '../support/stripe';
import * as stripeRepo from '#data/stripe.repo';

/**
 * The Stripe connection's management routes: every malformed field a 400,
 * another owner's application ACCESS_DENIED, and the two secrets never in an
 * answer, a stored item in plain text, a log line or an event.
 */
const secret = 'whsec_connectiontestsecret0123456789';
const apiKey = 'rk_live_connectiontestkey0123456789';
const lineItems: LineItems = new Map();
let stripe: StripeStandIn;
let env: TestServer;
let events: TestEvents;
let owner: Owner;
let other: Owner;
let tier: Subscription;
let foreignTier: Subscription;

beforeAll(async () => {
  stripe = await startStripeStandIn(lineItems);
  env = await startTestServer({ config: { stripeApiUrl: stripe.url } });
  events = await startTestEvents(env);
  [owner, other] = await Promise.all([createOwner(env.deps), createOwner(env.deps)]);
  [tier, foreignTier] = await Promise.all([seedSubscription(env.deps, owner), seedSubscription(env.deps, other)]);
}, 60_000);
afterAll(async () => {
  await events?.stop();
  await env?.close();
  await stripe?.close();
});

const manage = (path: string, body: unknown, as: Owner = owner) => env.post(path, body, as.auth);
const prices = () => ({ price_1Pro: { subscription_id: tier.subscription_id, duration_unit: 'months', duration_value: 1 } });
const connect = (body: Record<string, unknown> = {}) => manage('/integration/stripe/set', { app_id: owner.app_id, webhook_secret: secret, api_key: apiKey, prices: prices(), ...body });

describe('/integration/stripe/set', () => {
  it.each([
    ['a price id that is no Stripe price', () => ({ prices: { 'prod_1X': prices().price_1Pro } }), /^prices/],
    ['a duration unit the create route refuses', () => ({ prices: { price_1Pro: { ...prices().price_1Pro, duration_unit: 'fortnights' } } }), /^prices\.price_1Pro\.duration_unit/],
    ['a zero duration', () => ({ prices: { price_1Pro: { ...prices().price_1Pro, duration_value: 0 } } }), /^prices\.price_1Pro\.duration_value/],
    ['a duration over 100 years', () => ({ prices: { price_1Pro: { ...prices().price_1Pro, duration_unit: 'years', duration_value: 101 } } }), /^prices\.price_1Pro\.duration_value/],
    ['a misspelt mapping field', () => ({ prices: { price_1Pro: { ...prices().price_1Pro, max_device: 2 } } }), /^prices\.price_1Pro\.max_device/],
    ['too many seats', () => ({ prices: { price_1Pro: { ...prices().price_1Pro, max_devices: 101 } } }), /^prices\.price_1Pro\.max_devices/],
    ['a subscription id that is no UUID', () => ({ prices: { price_1Pro: { ...prices().price_1Pro, subscription_id: 'pro' } } }), /^prices\.price_1Pro\.subscription_id/],
    ['prices that are no map', () => ({ prices: [] }), /^prices/],
    ['a __proto__ price, which a map would lose unseen', () => ({ prices: JSON.parse(`{"__proto__":${JSON.stringify(prices().price_1Pro)}}`) }), /^prices: must not use the key "__proto__"$/],
    ['a webhook secret of another shape', () => ({ webhook_secret: 'hush_0123456789abcdef' }), /^webhook_secret/],
    ['a full secret key instead of a restricted key', () => ({ api_key: 'sk_live_connectiontestkey0123456789' }), /^api_key/],
    ['an app id that is no UUID', () => ({ app_id: 'app' }), /^app_id/],
  ] as [string, () => Record<string, unknown>, RegExp][])('answers 400 INVALID_INPUT for %s', async (_case, body, field) => {
    const answer = await connect(body());
    expect(answer.status).toBe(400);
    expect(answer.body.error_code).toBe('INVALID_INPUT');
    expect(answer.body.error).toMatch(field);
  });

  it('needs both secrets to connect, and keeps them when a later body leaves them out', async () => {
    const fresh = await createOwner(env.deps);
    const freshTier = await seedSubscription(env.deps, fresh);
    const body = { app_id: fresh.app_id, prices: { price_1A: { subscription_id: freshTier.subscription_id, duration_unit: 'days', duration_value: 30 } } };
    expect((await manage('/integration/stripe/set', { ...body, api_key: apiKey }, fresh)).body.error).toMatch(/^webhook_secret/);
    expect((await manage('/integration/stripe/set', { ...body, webhook_secret: secret }, fresh)).body.error).toMatch(/^api_key/);
    expect((await manage('/integration/stripe/set', { ...body, webhook_secret: secret, api_key: apiKey }, fresh)).status).toBe(200);
    const changed = await manage('/integration/stripe/set', { ...body, prices: {} }, fresh);
    expect(changed.body.data).toMatchObject({ webhook_secret: 'whsec_…6789', prices: {} });
    expect((await postStripeEvent(env, fresh.app_id, stripeEvent('evt_kept', 'customer.created', { id: 'cus_1' }), secret)).status).toBe(200);
  });

  it('refuses a tier of another application or owner, and another owner’s application', async () => {
    expect((await connect({ prices: { price_1Pro: { ...prices().price_1Pro, subscription_id: foreignTier.subscription_id } } })).body.error_code).toBe('ACCESS_DENIED');
    expect((await connect({ prices: { price_1Pro: { ...prices().price_1Pro, subscription_id: newId() } } })).body.error_code).toBe('SUBSCRIPTION_NOT_FOUND');
    const sibling = await seedSubscription(env.deps, { ...owner, app_id: newId() });
    const moved = await connect({ prices: { price_1Pro: { ...prices().price_1Pro, subscription_id: sibling.subscription_id } } });
    expect(moved.body).toEqual({ error: expect.stringMatching(/^prices\.price_1Pro\.subscription_id/), error_code: 'INVALID_INPUT' });
    for (const path of ['/integration/stripe/set', '/integration/stripe/get', '/integration/stripe/delete', '/integration/stripe/licenses']) {
      const answer = await manage(path, { app_id: owner.app_id, prices: {}, checkout_session: 'cs_test_1' }, other);
      expect(answer).toMatchObject({ status: 403, body: { error_code: 'ACCESS_DENIED' } });
    }
  });
});

describe('the secrets', () => {
  it('are answered by no route, stored only encrypted, and logged nowhere', async () => {
    const set = await connect();
    expect(set.status).toBe(200);
    const got = await manage('/integration/stripe/get', { app_id: owner.app_id });
    expect(got.body.data).toEqual({
      app_id: owner.app_id,
      webhook_secret: 'whsec_…6789',
      prices: prices(),
      webhook_path: `/stripe/webhook/${owner.app_id}`,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    for (const answer of [set, got]) {
      expect(JSON.stringify(answer.body)).not.toContain(secret);
      expect(JSON.stringify(answer.body)).not.toContain(apiKey);
      expect(JSON.stringify(answer.body)).not.toContain('ciphertext');
    }
    const { Items } = await env.deps.table.doc.send(new ScanCommand({ TableName: env.config.tableName, ConsistentRead: true }));
    const table = JSON.stringify(Items);
    expect(table).toContain('webhook_secret_ciphertext');
    expect(table).not.toContain(secret);
    expect(table).not.toContain(apiKey);
    const session = `cs_test_${newId().replaceAll('-', '')}`;
    lineItems.set(session, [{ price: 'price_1Pro', quantity: 1 }]);
    expect((await postStripeEvent(env, owner.app_id, stripeEvent('evt_logged', 'checkout.session.completed', { id: session, customer: 'cus_9' }), secret)).status).toBe(200);
    expect(env.logs.lines.some((line) => line.includes('evt_logged'))).toBe(true);
    expect(env.logs.lines.filter((line) => line.includes(secret) || line.includes(apiKey) || line.includes(secret.slice(6)))).toEqual([]);
  });

  it('do not decrypt as another application’s', async () => {
    await connect();
    const stored = (await stripeRepo.getConnection(env.deps.table, owner.app_id))!;
    await expect(env.deps.keyVault!.decrypt(other.app_id, stored.webhook_secret_ciphertext)).rejects.toThrow();
  });
});

describe('events and audit', () => {
  it('announces connecting, changing and disconnecting without a secret, and license.created with the Stripe metadata', async () => {
    const appOwner = await createOwner(env.deps);
    const appTier = await seedSubscription(env.deps, appOwner);
    const mapped = { price_1Audit: { subscription_id: appTier.subscription_id, duration_unit: 'days', duration_value: 7 } };
    await manage('/integration/stripe/set', { app_id: appOwner.app_id, webhook_secret: secret, api_key: apiKey, prices: mapped }, appOwner);
    await manage('/integration/stripe/set', { app_id: appOwner.app_id, prices: {} }, appOwner);
    const session = `cs_test_${newId().replaceAll('-', '')}`;
    lineItems.set(session, [{ price: 'price_1Audit', quantity: 1 }]);
    await manage('/integration/stripe/set', { app_id: appOwner.app_id, prices: mapped }, appOwner);
    expect((await postStripeEvent(env, appOwner.app_id, stripeEvent('evt_audit', 'checkout.session.completed', { id: session, customer: 'cus_a' }), secret)).status).toBe(200);
    expect((await manage('/integration/stripe/delete', { app_id: appOwner.app_id }, appOwner)).body.data).toEqual({ app_id: appOwner.app_id, deleted: true });
    await events.drain();

    const ofApp = events.delivered.filter((event) => event.app_id === appOwner.app_id && /^(stripe|license)\./.test(event.type));
    expect(ofApp.map((event) => event.type)).toEqual(['stripe.connected', 'stripe.changed', 'stripe.changed', 'license.created', 'stripe.disconnected']);
    expect(ofApp[0]).toMatchObject({ subject: appOwner.app_id, actor: expect.stringMatching(/^api_key:/), after: { prices: mapped } });
    expect(ofApp[3]).toMatchObject({ actor: 'stripe', after: { tags: ['stripe'], metadata: { stripe_customer: 'cus_a', stripe_checkout_session: session } } });
    expect(JSON.stringify(ofApp)).not.toMatch(/whsec_|rk_live_|ciphertext|hint/);
    const audit = await manage('/audit/get-bulk', { app_id: appOwner.app_id, type: 'stripe.disconnected' }, appOwner);
    expect(audit.body.data).toEqual([expect.objectContaining({ type: 'stripe.disconnected', actor: expect.stringMatching(/^api_key:/) })]);
  });
});
