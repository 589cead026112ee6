import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { newId } from '#core/ids';
import type { Subscription } from '#data/model/subscription';
import { startTestServer, type TestServer } from '../support/env';
import { seedSubscription } from '../support/fixtures';
import { startTestEvents, type TestEvents } from '../support/events';
import { checkInvariants } from '../support/invariants';
import { createOwner, type Owner } from '../support/owners';
import { connectStripe, postStripeEvent, startStripeStandIn, stripeEvent, type LineItems, type StripeStandIn } from '../support/stripe';

/**
 * A Stripe Checkout naming a trial's key buys that trial in place
 * (docs/stripe.md#buying-a-trial), through the local server and DynamoDB
 * Local, Stripe's API answered by a stand-in on loopback.
 */
const secret = 'whsec_trialconversionsecret0123456789';
const lineItems: LineItems = new Map();
let stripe: StripeStandIn;
let env: TestServer;
let owner: Owner;
let trialTier: Subscription;
let pro: Subscription;
let exclusive: Subscription;
let events: TestEvents;

beforeAll(async () => {
  stripe = await startStripeStandIn(lineItems);
  env = await startTestServer({ config: { stripeApiUrl: stripe.url, cacheTtlSeconds: 0 } });
  events = await startTestEvents(env);
  owner = await createOwner(env.deps);
  [trialTier, pro, exclusive] = await Promise.all([
    seedSubscription(env.deps, owner, { name: 'Trial', level: 1 }),
    seedSubscription(env.deps, owner, { name: 'Pro', level: 2 }),
    seedSubscription(env.deps, owner, { name: 'Exclusive', level: 3, single_key_per_hwid: true }),
  ]);
  const trial = { subscription_id: trialTier.subscription_id, duration_seconds: 14 * 86400, max_devices: 2, features: ['trial-banner'], per_ip_per_day: 1000 };
  expect((await env.post('/app/settings', { app_id: owner.app_id, trial }, owner.auth)).status).toBe(200);
  const prices = {
    price_pro: { subscription_id: pro.subscription_id, duration_unit: 'years', duration_value: 1, max_devices: 1, features: ['sync'], hwid_lock: true },
    price_exclusive: { subscription_id: exclusive.subscription_id, duration_unit: 'months', duration_value: 1 },
  };
  await connectStripe(env, owner, { webhook_secret: secret, api_key: 'rk_test_trialconversionkey0123456', prices });
}, 60_000);
afterAll(async () => {
  await events?.stop();
  await env?.close();
  await stripe?.close();
});

let devices = 0;
async function startedTrial(...hwids: string[]): Promise<string> {
  const device = `convert-${(devices += 1)}`;
  const started = await env.post('/trial', { app_id: owner.app_id, hwid: device });
  expect(started.body.message).toBe('TRIAL_STARTED');
  for (const hwid of hwids) await env.post('/auth', { app_id: owner.app_id, license: started.body.data.license, hwid });
  return started.body.data.license;
}

function checkout(items: { price: string; quantity: number }[], extra: Record<string, unknown>) {
  const session = `cs_test_${newId().replaceAll('-', '')}`;
  lineItems.set(session, items);
  const object = { id: session, object: 'checkout.session', customer: 'cus_trialbuyer', customer_details: { email: 'buyer@example.com' }, payment_intent: `pi_${newId().slice(0, 12)}`, subscription: null, invoice: null, ...extra };
  return { session, event: stripeEvent(`evt_${newId().replaceAll('-', '')}`, 'checkout.session.completed', object) };
}

const send = (event: Record<string, unknown>) => postStripeEvent(env, owner.app_id, event, secret);
const get = async (key: string) => (await env.post('/license/get', { license_key: key }, owner.auth)).body.data;
const sessionLicenses = async (session: string) => (await env.post('/integration/stripe/licenses', { app_id: owner.app_id, checkout_session: session }, owner.auth)).body.data as { key: string }[];
const licenseCount = async () => {
  const { Items } = await env.deps.table.doc.send(new ScanCommand({ TableName: env.config.tableName, ConsistentRead: true }));
  return { items: Items ?? [], licenses: (Items ?? []).filter((item) => item.sk === 'LIC' && item.app_id === owner.app_id).length };
};

describe('buying a trial through Stripe Checkout', () => {
  it('client_reference_id names the trial: it is upgraded in place, and the device then hears TRIAL_CONVERTED', async () => {
    const key = await startedTrial();
    // Before and after, the owner finds the license by its device, as any license.
    const device = (await get(key)).hwid as string;
    const byDevice = async () => {
      await events.drain();
      const found = (await env.post('/license/find', { app_id: owner.app_id, query: device }, owner.auth)).body.data.matches as { matched: string[]; license: { key: string } }[];
      return found.map((match) => [match.matched, match.license.key]);
    };
    expect(await byDevice()).toEqual([[['hwid'], key]]);
    const { session, event } = checkout([{ price: 'price_pro', quantity: 1 }], { client_reference_id: key });
    const before = await licenseCount();

    expect((await send(event)).status).toBe(200);

    const bought = await get(key);
    expect(bought).toMatchObject({
      subscription_id: pro.subscription_id,
      subscription_name: 'Pro',
      initial_duration: 365 * 86400,
      hwid_lock: true,
      features: ['sync'],
      tags: ['stripe', 'trial-converted'],
      metadata: { stripe_customer: 'cus_trialbuyer', stripe_checkout_session: session, email: 'buyer@example.com' },
      email: 'buyer@example.com',
    });
    expect(Date.parse(bought.expires_at) - Date.now()).toBeGreaterThan(364 * 86400_000);
    expect((await licenseCount()).licenses).toBe(before.licenses);
    expect((await sessionLicenses(session)).map((license) => license.key)).toEqual([key]);
    expect(bought.hwid).toBe(device);
    expect(await byDevice()).toEqual([[['hwid'], key]]);
    expect((await env.post('/trial', { app_id: owner.app_id, hwid: device })).body).toEqual({ success: false, message: 'TRIAL_CONVERTED' });
    expect((await env.post('/auth', { app_id: owner.app_id, license: key, hwid: device })).body.data.subscription_name).toBe('Pro');
  });

  it('redelivered three times at once: one upgrade, no license made', async () => {
    const key = await startedTrial();
    const { session, event } = checkout([{ price: 'price_pro', quantity: 1 }], { metadata: { license_key: key } });
    const before = await licenseCount();

    const answers = await Promise.all([send(event), send(event), send(event)]);

    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect((await licenseCount()).licenses).toBe(before.licenses);
    expect((await sessionLicenses(session)).map((license) => license.key)).toEqual([key]);
    await events.drain();
    const ofTrial = events.delivered.filter((event) => event.subject === key).map((event) => event.type);
    expect(ofTrial.filter((type) => type.startsWith('license.trial_'))).toEqual(['license.trial_started', 'license.trial_converted']);
    expect(ofTrial).toContain('license.activated');
    const audit = (await env.post('/audit/get-bulk', { app_id: owner.app_id, license_key: key, type: 'license.trial_converted' }, owner.auth)).body.data;
    expect(audit.map((entry: { actor: string }) => entry.actor)).toEqual(['stripe']);
    expect((await get(key)).tags).toEqual(['stripe', 'trial-converted']);
    // Sent again later, after the upgrade: still nothing made.
    expect((await send(event)).status).toBe(200);
    expect((await licenseCount()).licenses).toBe(before.licenses);
    expect(checkInvariants((await licenseCount()).items)).toEqual([]);
  });

  it('keeps the seats of the devices the trial holds, and units beyond the first make licenses as usual', async () => {
    const key = await startedTrial('second-seat');
    const { session, event } = checkout([{ price: 'price_pro', quantity: 3 }], { client_reference_id: key });
    const before = await licenseCount();

    expect((await send(event)).status).toBe(200);

    const bought = await get(key);
    expect([bought.max_devices, bought.hwids.length]).toEqual([2, 2]);
    const made = await sessionLicenses(session);
    expect(made).toHaveLength(3);
    expect(made[0]!.key).toBe(key);
    expect((await licenseCount()).licenses).toBe(before.licenses + 2);
  });

  it('makes a new license instead when the key is no trial of this application, or the price’s tier keeps one device per license', async () => {
    const bought = await startedTrial();
    await send(checkout([{ price: 'price_pro', quantity: 1 }], { client_reference_id: bought }).event);
    const stranger = await createOwner(env.deps);
    const foreign = await env.post('/license/create', { app_id: stranger.app_id, subscription_id: (await seedSubscription(env.deps, stranger)).subscription_id, duration_unit: 'days', duration_value: 1, tags: ['trial'] }, stranger.auth);
    const trial = await startedTrial();

    for (const [named, price] of [[bought, 'price_pro'], [foreign.body.data.key, 'price_pro'], ['NO-SUCH-KEY', 'price_pro'], [trial, 'price_exclusive'], ['not a key!', 'price_pro']] as const) {
      const { session, event } = checkout([{ price, quantity: 1 }], { client_reference_id: named });
      expect((await send(event)).status).toBe(200);
      const made = await sessionLicenses(session);
      expect(made).toHaveLength(1);
      expect(made[0]!.key).not.toBe(named);
    }
    expect((await get(trial)).tags).toEqual(['trial']);
    expect((await env.post('/license/get', { license_key: foreign.body.data.key }, stranger.auth)).body.data.tags).toEqual(['trial']);
  });
});
