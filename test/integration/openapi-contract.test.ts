import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newId } from '#core/ids';
import { keys } from '#data/keys';
import type { Subscription } from '#data/model/subscription';
import type { License } from '#data/model/license';
import { findRoute, routes, type RoutePath } from '../../functions/routes';
import { blacklist } from '../support/client';
import { createFakeClock } from '../support/clock';
import { request, startTestServer, type HttpResult, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { committedDocument, documentValidator } from '../support/openapi';
import { createOwner, keyOf, type Owner } from '../support/owners';
import { seedDelivery, seedWebhook } from '../support/webhooks';
import * as apps from '#data/app.repo';
import * as teams from '#data/team.repo';
import { timeFor } from '../support/time';
import { startTestEvents, type TestEvents } from '../support/events';
import { activationRequest, bearer, lastCode, licensesOf, portalOwner, signedInToken } from '../support/portal';
import { connectStripe, startStripeStandIn, type StripeStandIn } from '../support/stripe';

/**
 * Real requests to every route of the route table, for its success and each
 * error the document lists, every answer held to docs/openapi.json (status,
 * headers, body) by Ajv. The last test checks that every outcome the document
 * promises was produced here, except the two no single request can cause.
 */
const document = committedDocument();
const validator = documentValidator(document);

/** Outcomes only a fault or a race produces; their own tests force them. */
const elsewhere: Record<string, string> = {
  SERVER_ERROR: 'store faults: test/integration/faults.test.ts, client-faults.test.ts',
  'Internal server error': 'store faults: test/integration/client-faults.test.ts',
  CONFLICT: 'concurrent changes: test/integration/races.test.ts, devices-races.test.ts',
  // Check 6 of docs/client-api.md#check-order: the application vanished between the request's first read (INVALID_APP_ID) and its second.
  APPLICATION_NOT_FOUND: 'an application deleted mid-request: test/unit/client-checks.test.ts',
  SERVICE_UNAVAILABLE: 'a store too slow for the time budget of bulk routes: test/integration/bulk-slow-store.test.ts',
};

const clock = createFakeClock();
/** The one Stripe customer the stand-in opens a billing page for. */
const billedCustomer = 'cus_contractbilling';
let stripe: StripeStandIn;
let env: TestServer;
let throttled: TestServer;
let owner: Owner;
let other: Owner;
let pro: Subscription;
let exclusive: Subscription;
let foreignSubscription: Subscription;

/** `status:code` (management) or `status:message` (client) per route, as produced. */
const produced = new Map<RoutePath, Set<string>>();
const problems: string[] = [];
/** The first success body of each route: the document's example must have its fields. */
const successes = new Map<RoutePath, { data?: unknown }>();

function outcome(result: HttpResult): string {
  const body = result.body as { error_code?: string; message?: string };
  return `${result.status}:${body?.error_code ?? (result.status === 200 && body?.message === undefined ? '' : (body?.message ?? ''))}`;
}

/** Sends, checks the answer against the document, records what it produced. */
async function send(server: TestServer, path: RoutePath, body: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
  const result = await request(server.server.url, path, 'POST', body, headers);
  problems.push(...validator.answerProblems(path, result.status, result.headers, result.body));
  const seen = produced.get(path) ?? new Set<string>();
  seen.add(outcome(result));
  produced.set(path, seen);
  if ((result.status === 200 || result.status === 202) && !successes.has(path)) successes.set(path, result.body);
  return result;
}

const manage = (path: RoutePath, body: unknown) => send(env, path, body, owner.auth);

async function expectOutcome(result: Promise<HttpResult>, expected: string) {
  const answer = await result;
  expect(`${outcome(answer)} ${JSON.stringify(answer.body).slice(0, 300)}`).toMatch(new RegExp(`^${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `));
  return answer;
}

beforeAll(async () => {
  stripe = await startStripeStandIn(new Map(), new Set([billedCustomer]));
  [env, throttled] = await Promise.all([
    startTestServer({ clock, config: { cacheTtlSeconds: 0, trustedViewerHeaders: ['country', 'asn'], stripeApiUrl: stripe.url } }),
    // One token and almost no refill: the first request of an owner or app passes, the next is throttled.
    startTestServer({ rateLimit: { ratePerSecond: 0.001, burst: 1 }, clientRateLimit: { ratePerSecond: 0.001, burst: 1 } }),
  ]);
  [owner, other] = await Promise.all([createOwner(env.deps), createOwner(env.deps)]);
  pro = await seedSubscription(env.deps, owner, { name: 'Pro', level: 2 });
  exclusive = await seedSubscription(env.deps, owner, { name: 'Exclusive', level: 3, single_key_per_hwid: true });
  foreignSubscription = await seedSubscription(env.deps, other);
}, 60_000);
afterAll(async () => {
  await Promise.all([env?.close(), throttled?.close(), stripe?.close()]);
});

const license = (overrides: Parameters<typeof seedLicense>[2] = {}) => seedLicense(env.deps, pro, overrides);

/** A valid body of /integration/stripe/set for the owner's application. */
const stripeConnection = (prices: Record<string, unknown> = { price_contract: { subscription_id: pro.subscription_id, duration_unit: 'months', duration_value: 1 } }) => ({
  app_id: owner.app_id,
  webhook_secret: 'whsec_contractcontractcontract0000',
  api_key: 'rk_test_contractcontractcontract00',
  prices,
});

type PortalPath = Extract<RoutePath, `/portal/${string}`>;

describe('every customer portal route, against the document', () => {
  let events: TestEvents;
  beforeAll(async () => {
    events = await startTestEvents(env);
  });
  afterAll(() => events.stop());

  it('answers success and each documented error of every portal route', async () => {
    const portal = await portalOwner(env, { sender_name: 'Contract', support_url: 'https://example.com/help' });
    const off = await createOwner(env.deps);
    const [bound] = await licensesOf(env, events, portal, 'contract@example.com', 1, {
      hwid: 'desk-pc',
      hwids: ['desk-pc', 'laptop'],
      max_devices: 2,
      hwid_lock: true,
      hwid_reset_allowed: true,
      hwid_reset_interval: 3600,
      last_hwid_reset_at: null,
    });
    const [notReached] = await licensesOf(env, events, portal, 'other@example.com');
    await connectStripe(env, portal, { webhook_secret: 'whsec_contractportalportalportal00', api_key: 'rk_test_contractportalportalportal', prices: {} });
    const [billed, refusedByStripe] = await Promise.all(
      [billedCustomer, 'cus_unknowntostripe'].map(async (customer) => (await licensesOf(env, events, portal, 'contract@example.com', 1, { metadata: { stripe_customer: customer } }))[0]!),
    );
    const exclusiveTier = await seedSubscription(env.deps, portal, { single_key_per_hwid: true });
    const [firstExclusive, secondExclusive] = await licensesOf(env, events, portal, 'contract@example.com', 2, { hwid_lock: true, subscription_id: exclusiveTier.subscription_id });
    const seatTaken = { expires_at: new Date(clock.now().getTime() + 3600_000).toISOString(), borrowed: false };
    const [fullSeats] = await licensesOf(env, events, portal, 'contract@example.com', 1, { hwid_lock: true, lease_seconds: 3600, max_devices: 1, hwid: 'seat-pc', hwids: ['seat-pc'], leases: { 'seat-pc': seatTaken } } as Partial<License>);
    // A release runs /reset-hwid's checks: each refusal of the license's state, on a license of the customer's.
    const inactiveTier = await seedSubscription(env.deps, portal, { status: 'inactive' });
    const refusing: [License, string][] = [];
    for (const [overrides, expected] of [
      [{ status: 'paused' }, '403:LICENSE_NOT_ACTIVE'],
      [{ first_used_at: '2020-01-01T00:00:00.000Z', expires_at: '2020-01-31T00:00:00.000Z' }, '403:LICENSE_EXPIRED'],
      [{ subscription_id: newId() }, '403:SUBSCRIPTION_ERROR'],
      [{ subscription_id: inactiveTier.subscription_id }, '403:SUBSCRIPTION_NOT_ACTIVE'],
      [{ hwids: ['desk-pc'], hwid_lock: true, hwid_reset_allowed: false }, '403:HWID_RESET_NOT_ALLOWED'],
    ] as [Partial<License>, string][]) {
      refusing.push([(await licensesOf(env, events, portal, 'contract@example.com', 1, overrides))[0]!, expected]);
    }
    const paths: PortalPath[] = ['/portal/app', '/portal/sign-in', '/portal/verify', '/portal/sign-out', '/portal/licenses', '/portal/release-device', '/portal/license-file', '/portal/billing'];
    expect(paths.sort()).toEqual(routes.filter((route) => route.group === 'portal').map((route) => route.path).sort());

    await expectOutcome(send(env, '/portal/app', { app_id: portal.app_id }), '200:');
    await expectOutcome(send(env, '/portal/sign-in', { app_id: portal.app_id, email: 'contract@example.com' }), '202:');
    const wrong = String((Number(lastCode(env, 'contract@example.com')) + 1) % 1_000_000).padStart(6, '0');
    await expectOutcome(send(env, '/portal/verify', { app_id: portal.app_id, email: 'contract@example.com', code: wrong }), '401:INVALID_CODE');
    const verified = await expectOutcome(send(env, '/portal/verify', { app_id: portal.app_id, email: 'contract@example.com', code: lastCode(env, 'contract@example.com') }), '200:');
    await expectOutcome(send(env, '/portal/licenses', {}, bearer(verified.body.data.token)), '200:');
    const releasing = (license_key: string, hwid: string) => send(env, '/portal/release-device', { license_key, hwid }, bearer(verified.body.data.token));
    await expectOutcome(releasing(bound!.key, 'laptop'), '200:');
    await expectOutcome(releasing(bound!.key, 'laptop'), '403:HWID_NOT_BOUND');
    await expectOutcome(releasing(bound!.key, 'desk-pc'), '403:HWID_RESET_COOLDOWN');
    await expectOutcome(releasing(notReached!.key, 'desk-pc'), '404:LICENSE_NOT_FOUND');
    for (const [license, expected] of refusing) await expectOutcome(releasing(license.key, 'desk-pc'), expected);

    const filing = (license: License, hwid: string) =>
      send(env, '/portal/license-file', { license_key: license.key, request: activationRequest({ app_id: portal.app_id, license: license.key, hwid }) }, bearer(verified.body.data.token));
    await expectOutcome(filing(bound!, 'laptop'), '200:');
    await expectOutcome(filing(bound!, 'third-pc'), '403:HWID_MISMATCH');
    await expectOutcome(filing(firstExclusive!, 'shared-pc'), '200:');
    await expectOutcome(filing(secondExclusive!, 'shared-pc'), '403:DEVICE_ALREADY_REGISTERED_WITH_OTHER_LICENSE');
    await expectOutcome(filing(fullSeats!, 'other-seat-pc'), '403:SEATS_EXHAUSTED');
    await expectOutcome(filing(notReached!, 'laptop'), '404:LICENSE_NOT_FOUND');
    for (const [license, expected] of refusing.slice(0, 4)) await expectOutcome(filing(license, 'desk-pc'), expected);
    const billing = (license: License) => send(env, '/portal/billing', { license_key: license.key }, bearer(verified.body.data.token));
    await expectOutcome(billing(billed!), '200:');
    await expectOutcome(billing(bound!), '404:NO_BILLING');
    await expectOutcome(billing(refusedByStripe!), '502:BILLING_UNAVAILABLE');
    await expectOutcome(billing(notReached!), '404:LICENSE_NOT_FOUND');
    await request(env.server.url, '/app/settings', 'POST', { app_id: portal.app_id, portal: { enabled: true, allow_device_release: false } }, portal.auth);
    await expectOutcome(releasing(bound!.key, 'desk-pc'), '403:NOT_ALLOWED');
    await request(env.server.url, '/app/settings', 'POST', { app_id: portal.app_id, portal: { enabled: true, allow_license_files: false } }, portal.auth);
    await expectOutcome(filing(bound!, 'laptop'), '403:NOT_ALLOWED');
    await expectOutcome(send(env, '/portal/sign-out', {}, bearer(verified.body.data.token)), '200:');
    await expectOutcome(send(env, '/portal/sign-out', {}, bearer(verified.body.data.token)), '401:INVALID_SESSION');
    await expectOutcome(send(env, '/portal/licenses', {}, bearer(verified.body.data.token)), '401:INVALID_SESSION');
    await expectOutcome(releasing(bound!.key, 'desk-pc'), '401:INVALID_SESSION');
    await expectOutcome(filing(bound!, 'laptop'), '401:INVALID_SESSION');
    await expectOutcome(billing(billed!), '401:INVALID_SESSION');

    for (const path of paths) {
      await expectOutcome(send(env, path, ['/portal/sign-out', '/portal/licenses'].includes(path) ? { unknown: 1 } : {}), '400:INVALID_INPUT');
      await expectOutcome(send(env, path, { padding: 'x'.repeat(300 * 1024) }), '413:PAYLOAD_TOO_LARGE');
      // Throttled per source address: the first request passes, the next is 429.
      await send(throttled, path, {});
      await expectOutcome(send(throttled, path, {}), '429:RATE_LIMITED');
    }
    for (let index = 0; index < 5; index++) await send(env, '/portal/sign-in', { app_id: portal.app_id, email: 'limited@example.com' });
    await expectOutcome(send(env, '/portal/sign-in', { app_id: portal.app_id, email: 'limited@example.com' }), '429:RATE_LIMITED');
    await expectOutcome(send(env, '/portal/app', { app_id: off.app_id }), '403:PORTAL_DISABLED');
    await expectOutcome(send(env, '/portal/sign-in', { app_id: off.app_id, email: 'contract@example.com' }), '403:PORTAL_DISABLED');
    await expectOutcome(send(env, '/portal/verify', { app_id: off.app_id, email: 'contract@example.com', code: '123456' }), '403:PORTAL_DISABLED');
    const switchedOff = await signedInToken(env, portal, 'contract@example.com');
    await request(env.server.url, '/app/settings', 'POST', { app_id: portal.app_id, portal: { enabled: false } }, portal.auth);
    await expectOutcome(send(env, '/portal/licenses', {}, bearer(switchedOff)), '403:PORTAL_DISABLED');
    await expectOutcome(send(env, '/portal/release-device', { license_key: bound!.key, hwid: 'desk-pc' }, bearer(switchedOff)), '403:PORTAL_DISABLED');
    await expectOutcome(send(env, '/portal/license-file', { license_key: bound!.key, request: activationRequest({ app_id: portal.app_id, license: bound!.key, hwid: 'laptop' }) }, bearer(switchedOff)), '403:PORTAL_DISABLED');
    await expectOutcome(send(env, '/portal/billing', { license_key: billed!.key }, bearer(switchedOff)), '403:PORTAL_DISABLED');

    const lapsedTeam = await portalOwner(env);
    const [lapsedKey] = await licensesOf(env, events, lapsedTeam, 'contract@example.com', 1, { hwids: ['desk-pc'], hwid_lock: true });
    const lapsedToken = await signedInToken(env, lapsedTeam, 'contract@example.com');
    await teams.setPlanExpiry(env.deps.table, lapsedTeam.team_id, '2020-01-01T00:00:00.000Z');
    await expectOutcome(send(env, '/portal/release-device', { license_key: lapsedKey!.key, hwid: 'desk-pc' }, bearer(lapsedToken)), '403:TEAM_ERROR');
    await expectOutcome(send(env, '/portal/license-file', { license_key: lapsedKey!.key, request: activationRequest({ app_id: lapsedTeam.app_id, license: lapsedKey!.key, hwid: 'desk-pc' }) }, bearer(lapsedToken)), '403:TEAM_ERROR');
  }, timeFor(30));
});

describe('every management route, against the document', () => {
  /** A valid body for each route, made against fresh data. */
  const valid: Record<Exclude<RoutePath, '/auth' | '/register' | '/reset-hwid' | '/release' | '/usage' | '/license-file' | '/license-file/return' | '/trial' | PortalPath>, () => Promise<Record<string, unknown>>> = {
    '/license/create': async () => ({ app_id: owner.app_id, subscription_id: pro.subscription_id, duration_unit: 'days', duration_value: 30, tags: ['contract'], max_devices: 2, hwid_lock: true, lease_seconds: 3600 }),
    '/license/create-bulk': async () => ({ key_amount: 2, app_id: owner.app_id, subscription_id: pro.subscription_id, duration_unit: 'days', duration_value: 30 }),
    '/license/extend': async () => ({ license_key: (await license()).key, extend_seconds: 3600 }),
    '/license/extend-bulk': async () => ({ license_keys: [(await license()).key, 'NO-SUCH-KEY'], extend_seconds: 3600, request_id: newId() }),
    '/license/delete': async () => ({ license_key: (await license()).key }),
    '/license/delete-bulk': async () => ({ license_keys: [(await license()).key, 'NO-SUCH-KEY'] }),
    '/license/get': async () => ({ license_key: (await license({ hwid: 'desk', hwid_lock: true, username: 'getter', metadata: { order: 7 } })).key }),
    '/license/get-bulk': async () => ({ app_id: owner.app_id, per_page: 2 }),
    '/license/find': async () => ({ app_id: owner.app_id, query: (await license()).key }),
    '/license/update-status': async () => ({ license_key: (await license()).key, status: 'paused' }),
    '/license/update-status-bulk': async () => ({ license_keys: [(await license()).key], status: 'paused' }),
    '/license/update-subscription': async () => ({ license_key: (await license()).key, subscription_id: exclusive.subscription_id }),
    '/license/update-user-credentials': async () => ({ license_key: (await license()).key, username: `user-${newId().slice(0, 8)}`, password: 'correct horse' }),
    '/license/update-metadata': async () => ({ license_key: (await license()).key, metadata: { order: 1042 } }),
    '/license/update-features': async () => ({ license_key: (await license()).key, features: ['export.pdf', 'sync'] }),
    '/license/update-usage-limits': async () => ({ license_key: (await license()).key, usage_limits: { exports: { limit: 100, period: 'month', overage: 10 } } }),
    '/license/reset-usage': async () => ({ license_key: (await license({ usage_limits: { exports: { limit: 5, period: 'day', overage: 0 } } })).key, counter: 'exports' }),
    '/license/update-email': async () => ({ license_key: (await license()).key, email: 'Contract.Buyer@Example.com' }),
    '/hwid/edit': async () => ({ license_key: (await license()).key, hwid: `pc-${newId()}` }),
    '/hwid/toggle-lock': async () => ({ license_key: (await license()).key }),
    '/hwid/toggle-lock-bulk': async () => ({ license_keys: [(await license()).key], hwid_lock: true }),
    '/hwid/toggle-reset-allowed': async () => ({ license_key: (await license()).key, hwid_reset_allowed: false }),
    '/hwid/update-reset-interval': async () => ({ license_key: (await license()).key, hwid_reset_interval: 86400 }),
    '/hwid/set-max-devices': async () => ({ license_key: (await license({ hwids: ['a'], hwid: 'a' })).key, max_devices: 3 }),
    '/hwid/remove': async () => ({ license_key: (await license({ hwid: 'old-pc', hwid_lock: true })).key, hwid: 'old-pc' }),
    '/hwid/set-lease': async () => ({ license_key: (await license({ hwid: 'desk', hwid_lock: true, max_devices: 2 })).key, lease_seconds: 3600 }),
    '/subscription/create': async () => ({ app_id: owner.app_id, name: 'Team', level: 5 }),
    '/subscription/edit': async () => ({ subscription_id: (await seedSubscription(env.deps, owner)).subscription_id, name: 'Renamed' }),
    '/subscription/delete': async () => ({ subscription_id: (await seedSubscription(env.deps, owner)).subscription_id }),
    '/subscription/get-bulk': async () => ({ app_id: owner.app_id }),
    '/blacklist/add': async () => ({ app_id: owner.app_id, type: 'asn', value: '13335', reason: 'datacenter traffic' }),
    '/blacklist/delete': async () => {
      await blacklist(env, owner.app_id, 'country', 'KP');
      return { app_id: owner.app_id, type: 'country', value: 'KP' };
    },
    '/blacklist/get-bulk': async () => ({ app_id: owner.app_id }),
    '/app/list': async () => ({}),
    '/app/settings': async () => ({ app_id: owner.app_id, offline_token_ttl: 3600, max_borrow_seconds: 86400, trial: { subscription_id: pro.subscription_id, duration_seconds: 86400 }, portal: { enabled: true, sender_name: 'Contract', support_url: 'https://example.com/help' } }),
    '/app/signing-key': async () => ({ app_id: owner.app_id }),
    '/app/stats': async () => ({ app_id: owner.app_id, days: 3 }),
    '/app/create': async () => ({ name: 'Contract app', request_id: newId() }),
    '/app/update': async () => ({ app_id: owner.app_id, name: 'Contract app renamed', status: 'active' }),
    '/app/rotate-signing-key': async () => ({ app_id: owner.app_id }),
    '/audit/get-bulk': async () => ({ app_id: owner.app_id, actor: 'admin', from: '2020-01-01T00:00:00Z', per_page: 5 }),
    '/apikey/create': async () => ({ role: 'support', apps: [owner.app_id], name: 'Contract' }),
    '/apikey/list': async () => ({}),
    '/apikey/revoke': async () => ({ key_id: (await keyOf(env.deps, owner, 'read_only')).key_id }),
    '/apikey/current': async () => ({}),
    '/webhook/create': async () => ({ app_id: owner.app_id, url: 'https://example.com/hooks', events: ['*'], description: 'CRM' }),
    '/webhook/list': async () => ({ app_id: owner.app_id }),
    '/webhook/update': async () => ({ webhook_id: (await seedWebhook(env, owner)).webhook_id, events: ['license.created'], enabled: false }),
    '/webhook/delete': async () => ({ webhook_id: (await seedWebhook(env, owner)).webhook_id }),
    '/webhook/rotate-secret': async () => ({ webhook_id: (await seedWebhook(env, owner)).webhook_id }),
    '/webhook/deliveries': async () => ({ webhook_id: (await seedDelivery(env, owner)).webhook_id, per_page: 5 }),
    '/webhook/redeliver': async () => ({ delivery_id: (await seedDelivery(env, owner)).delivery_id }),
    '/integration/stripe/set': async () => stripeConnection(),
    '/integration/stripe/get': async () => {
      await manage('/integration/stripe/set', stripeConnection());
      return { app_id: owner.app_id };
    },
    '/integration/stripe/delete': async () => {
      await manage('/integration/stripe/set', stripeConnection());
      return { app_id: owner.app_id };
    },
    '/integration/stripe/licenses': async () => ({ app_id: owner.app_id, checkout_session: 'cs_test_contract' }),
  };
  const managementPaths = Object.keys(valid) as (keyof typeof valid)[];
  /** Routes whose body has no fields: an unknown one is their bad input. */
  const noFields = new Set<RoutePath>(['/app/list', '/apikey/list', '/apikey/current']);
  let readOnly: ReturnType<typeof keyOf> | undefined;
  const readOnlyKey = () => (readOnly ??= keyOf(env.deps, owner, 'read_only'));

  it('covers exactly the management routes of the route table', () => {
    expect([...managementPaths].sort()).toEqual(routes.filter((route) => route.group !== 'client' && route.group !== 'portal').map((route) => route.path).sort());
  });

  it.each(managementPaths)('%s: success, and the errors every management route shares', async (path) => {
    const body = await valid[path]();
    expect(validator.requestProblems(path, body)).toEqual([]);
    await expectOutcome(manage(path, body), '200:');
    await expectOutcome(manage(path, noFields.has(path) ? { unknown: 1 } : {}), '400:INVALID_INPUT');
    await expectOutcome(send(env, path, body), '401:MISSING_AUTH');
    await expectOutcome(send(env, path, body, { 'x-api-key': 'lsk_not-a-key' }), '401:INVALID_API_KEY');
    await expectOutcome(manage(path, { padding: 'x'.repeat(300 * 1024) }), '413:PAYLOAD_TOO_LARGE');
    if (findRoute(path)!.access !== 'read') await expectOutcome(send(env, path, body, (await readOnlyKey()).auth), '403:ACCESS_DENIED');
  });

  it('answers 429 RATE_LIMITED with Retry-After on every management route once the owner is over the limit', async () => {
    const throttledOwner = await createOwner(throttled.deps);
    await request(throttled.server.url, '/app/list', 'POST', {}, throttledOwner.auth);
    for (const path of managementPaths) await expectOutcome(send(throttled, path, {}, throttledOwner.auth), '429:RATE_LIMITED');
  });

  it('answers each route its own documented errors', async () => {
    const unknownApp = { app_id: newId() };
    const foreignApp = { app_id: other.app_id };
    const missingKey = { license_key: 'NO-SUCH-KEY' };
    const foreignKey = { license_key: (await seedLicense(env.deps, foreignSubscription)).key };
    const create = { subscription_id: pro.subscription_id, duration_unit: 'days', duration_value: 1 };

    for (const path of ['/license/get-bulk', '/license/find', '/subscription/get-bulk', '/blacklist/get-bulk', '/app/settings', '/app/signing-key', '/app/stats', '/app/update', '/app/rotate-signing-key', '/audit/get-bulk', '/subscription/create', '/blacklist/add', '/blacklist/delete', '/license/create', '/license/create-bulk'] as const) {
      const extra: Record<string, unknown> = {
        '/subscription/create': { name: 'X', level: 1 },
        '/app/update': { name: 'X' },
        '/blacklist/add': { type: 'asn', value: '1' },
        '/blacklist/delete': { type: 'asn', value: '1' },
        '/license/create': create,
        '/license/create-bulk': { ...create, key_amount: 1 },
        '/license/find': { query: 'nobody-here' },
      }[path as string] as Record<string, unknown> ?? {};
      await expectOutcome(manage(path, { ...extra, ...unknownApp }), '404:APP_NOT_FOUND');
      await expectOutcome(manage(path, { ...extra, ...foreignApp }), '403:ACCESS_DENIED');
    }

    for (const path of ['/license/extend', '/license/delete', '/license/get', '/license/update-status', '/license/update-subscription', '/license/update-user-credentials', '/license/update-metadata', '/license/update-features', '/license/update-usage-limits', '/license/reset-usage', '/license/update-email', '/hwid/edit', '/hwid/toggle-lock', '/hwid/toggle-reset-allowed', '/hwid/update-reset-interval', '/hwid/set-max-devices', '/hwid/remove', '/hwid/set-lease'] as const) {
      const extra = {
        '/license/update-features': { features: [] },
        '/license/update-usage-limits': { usage_limits: {} },
        '/license/extend': { extend_seconds: 60 },
        '/license/update-status': { status: 'paused' },
        '/license/update-subscription': { subscription_id: pro.subscription_id },
        '/license/update-user-credentials': { username: 'nobody-here' },
        '/license/update-metadata': { metadata: {} },
        '/license/update-email': { email: null },
        '/hwid/edit': { hwid: 'x' },
        '/hwid/update-reset-interval': { hwid_reset_interval: 60 },
        '/hwid/set-max-devices': { max_devices: 2 },
        '/hwid/remove': { hwid: 'x' },
        '/hwid/set-lease': { lease_seconds: 60 },
      }[path as string] ?? {};
      await expectOutcome(manage(path, { ...extra, ...missingKey }), '404:LICENSE_NOT_FOUND');
      // Another owner's license is answered exactly like a missing one.
      await expectOutcome(manage(path, { ...extra, ...foreignKey }), '404:LICENSE_NOT_FOUND');
    }

    await expectOutcome(manage('/license/create', { ...create, app_id: owner.app_id, subscription_id: newId() }), '404:SUBSCRIPTION_NOT_FOUND');
    await expectOutcome(manage('/license/create', { ...create, app_id: owner.app_id, subscription_id: foreignSubscription.subscription_id }), '403:ACCESS_DENIED');
    await expectOutcome(manage('/license/create-bulk', { ...create, key_amount: 1, app_id: owner.app_id, subscription_id: newId() }), '404:SUBSCRIPTION_NOT_FOUND');
    const custom = { ...create, app_id: owner.app_id, license_key: `CUSTOM-${newId().slice(0, 8)}` };
    await expectOutcome(manage('/license/create', custom), '200:');
    await expectOutcome(manage('/license/create', custom), '409:LICENSE_KEY_TAKEN');
    const named = { ...create, app_id: owner.app_id, username: `taken-${newId().slice(0, 8)}`, password: 'correct horse' };
    await expectOutcome(manage('/license/create', named), '200:');
    await expectOutcome(manage('/license/create', named), '409:USERNAME_TAKEN');
    await expectOutcome(manage('/license/update-user-credentials', { license_key: (await license()).key, username: named.username, password: 'another horse' }), '409:USERNAME_TAKEN');

    const move = { license_key: (await license()).key };
    await expectOutcome(manage('/license/update-subscription', { ...move, subscription_id: newId() }), '404:SUBSCRIPTION_NOT_FOUND');
    await expectOutcome(manage('/license/update-subscription', { ...move, subscription_id: foreignSubscription.subscription_id }), '403:ACCESS_DENIED');

    const bound = await seedLicense(env.deps, exclusive, { hwid: 'shared-pc', hwid_lock: true });
    await manage('/hwid/edit', { license_key: bound.key, hwid: 'shared-pc' });
    await expectOutcome(manage('/hwid/edit', { license_key: (await seedLicense(env.deps, exclusive)).key, hwid: 'shared-pc' }), '409:HWID_IN_USE');
    await expectOutcome(manage('/hwid/remove', { license_key: bound.key, hwid: 'never-bound' }), '404:HWID_NOT_FOUND');

    for (const path of ['/subscription/edit', '/subscription/delete'] as const) {
      const extra = path === '/subscription/edit' ? { level: 9 } : {};
      await expectOutcome(manage(path, { ...extra, subscription_id: newId() }), '404:SUBSCRIPTION_NOT_FOUND');
      await expectOutcome(manage(path, { ...extra, subscription_id: foreignSubscription.subscription_id }), '403:ACCESS_DENIED');
    }
    await expectOutcome(manage('/blacklist/delete', { app_id: owner.app_id, type: 'hwid', value: 'never-listed' }), '404:BLACKLIST_ENTRY_NOT_FOUND');

    const hook = { url: 'https://example.com/hooks', events: ['*'] };
    await expectOutcome(manage('/webhook/create', { ...hook, ...unknownApp }), '404:APP_NOT_FOUND');
    await expectOutcome(manage('/webhook/create', { ...hook, ...foreignApp }), '403:ACCESS_DENIED');
    await expectOutcome(manage('/webhook/list', unknownApp), '404:APP_NOT_FOUND');
    await expectOutcome(manage('/webhook/list', foreignApp), '403:ACCESS_DENIED');
    const full = await createOwner(env.deps);
    const createFor = () => send(env, '/webhook/create', { ...hook, app_id: full.app_id }, full.auth);
    for (let index = 0; index < 10; index++) await expectOutcome(createFor(), '200:');
    await expectOutcome(createFor(), '409:WEBHOOK_LIMIT_REACHED');
    const foreignWebhook = await seedWebhook(env, other);
    for (const path of ['/webhook/update', '/webhook/delete', '/webhook/rotate-secret', '/webhook/deliveries'] as const) {
      await expectOutcome(manage(path, { webhook_id: newId() }), '404:WEBHOOK_NOT_FOUND');
      await expectOutcome(manage(path, { webhook_id: foreignWebhook.webhook_id }), '403:ACCESS_DENIED');
    }
    const foreignDelivery = await seedDelivery(env, other);
    await expectOutcome(manage('/webhook/redeliver', { delivery_id: foreignDelivery.delivery_id }), '403:ACCESS_DENIED');
    await expectOutcome(manage('/webhook/redeliver', { delivery_id: `${newId()}.1772618400000-5d1c0a7e9b3f2468` }), '404:DELIVERY_NOT_FOUND');
    const disabled = await seedDelivery(env, owner);
    await manage('/webhook/update', { webhook_id: disabled.webhook_id, enabled: false });
    await expectOutcome(manage('/webhook/redeliver', { delivery_id: disabled.delivery_id }), '409:WEBHOOK_DISABLED');
    const stripeExtra: Record<string, Record<string, unknown>> = { '/integration/stripe/set': { prices: {} }, '/integration/stripe/licenses': { checkout_session: 'cs_test_x' } };
    for (const path of ['/integration/stripe/set', '/integration/stripe/get', '/integration/stripe/delete', '/integration/stripe/licenses'] as const) {
      await expectOutcome(manage(path, { ...stripeExtra[path], ...unknownApp }), '404:APP_NOT_FOUND');
      await expectOutcome(manage(path, { ...stripeExtra[path], ...foreignApp }), '403:ACCESS_DENIED');
    }
    const tier = (subscriptionId: string) => ({ price_x: { subscription_id: subscriptionId, duration_unit: 'days', duration_value: 1 } });
    await expectOutcome(manage('/integration/stripe/set', stripeConnection(tier(newId()))), '404:SUBSCRIPTION_NOT_FOUND');
    await expectOutcome(manage('/integration/stripe/set', stripeConnection(tier(foreignSubscription.subscription_id))), '403:ACCESS_DENIED');
    await manage('/integration/stripe/delete', { app_id: owner.app_id });
    await expectOutcome(manage('/integration/stripe/get', { app_id: owner.app_id }), '404:NOT_FOUND');
    await expectOutcome(manage('/integration/stripe/delete', { app_id: owner.app_id }), '404:NOT_FOUND');

    const trialOf = (subscriptionId: string) => ({ app_id: owner.app_id, trial: { subscription_id: subscriptionId, duration_seconds: 3600 } });
    await expectOutcome(manage('/app/settings', trialOf(newId())), '404:SUBSCRIPTION_NOT_FOUND');
    await expectOutcome(manage('/app/settings', trialOf(foreignSubscription.subscription_id)), '403:ACCESS_DENIED');
    // A deployment that sends no email (on AWS: no sesIdentity) refuses to switch the portal on.
    const mailer = env.deps.mailer;
    env.deps.mailer = undefined;
    await expectOutcome(manage('/app/settings', { app_id: owner.app_id, portal: { enabled: true } }), '409:NO_EMAIL_SENDER');
    env.deps.mailer = mailer;

    await expectOutcome(manage('/apikey/create', { role: 'read_only', apps: [unknownApp.app_id] }), '404:APP_NOT_FOUND');
    await expectOutcome(manage('/apikey/create', { role: 'read_only', apps: [foreignApp.app_id] }), '403:ACCESS_DENIED');
    await expectOutcome(manage('/apikey/revoke', { key_id: (await keyOf(env.deps, other, 'admin')).key_id }), '403:ACCESS_DENIED');
  // About 120 requests one after another.
  }, timeFor(120));
});

describe('the client routes, against the document', () => {
  const client = (path: RoutePath, body: unknown, headers: Record<string, string> = {}) => send(env, path, body, headers);
  const auth = (body: Record<string, unknown>, headers: Record<string, string> = {}) => client('/auth', { app_id: owner.app_id, ...body }, headers);
  const reset = (body: Record<string, unknown>) => client('/reset-hwid', { app_id: owner.app_id, ...body });
  const release = (body: Record<string, unknown>) => client('/release', { app_id: owner.app_id, ...body });
  const floating = (overrides: Parameters<typeof seedLicense>[2] = {}) => license({ hwid_lock: true, lease_seconds: 3600, max_devices: 1, ...overrides });

  it('/auth: the four success messages, signed, with and without an offline token', async () => {
    await expectOutcome(auth({ license: (await license()).key }), '200:LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY');
    const locked = await license({ hwid_lock: true });
    const signed = await expectOutcome(auth({ license: locked.key, hwid: 'pc-1', nonce: 'contract-nonce-1', offline_token: true }), '200:LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY');
    expect(signed.headers.get('signature-input')).toContain('nonce="contract-nonce-1"');
    expect(typeof signed.body.data.offline_token).toBe('string');
    await expectOutcome(auth({ license: locked.key, hwid: 'pc-1' }), '200:LICENSE_VERIFIED_USED_AND_LOCKED_KEY');
    const seats = await license({ max_devices: 2, first_used_at: clock.now().toISOString(), expires_at: new Date(clock.now().getTime() + 86400_000).toISOString() });
    await expectOutcome(auth({ license: seats.key }), '200:LICENSE_VERIFIED_USED_AND_UNLOCKED_KEY');
  });

  it.each(['/auth', '/reset-hwid', '/release'] as const)('%s: every 400 message, in the shape the document gives', async (path) => {
    await expectOutcome(client(path, '{"app_id":'), '400:Invalid JSON in request body');
    await expectOutcome(client(path, {}), '400:App ID is required');
    await expectOutcome(client(path, { app_id: 'nope' }), '400:Invalid App ID format (must be a valid UUID)');
    await expectOutcome(client(path, { app_id: owner.app_id }), '400:No valid authentication method provided (missing license key or username/password)');
    await expectOutcome(client(path, { app_id: owner.app_id, license: 'K', hwid: 7 }), '400:HWID must be a string of at most 256 characters');
    await expectOutcome(client(path, { app_id: owner.app_id, license: 'K', hwid: '__proto__' }), '400:HWID must not be "__proto__"');
    await expectOutcome(client(path, { app_id: owner.app_id, license: 'K', nonce: 'bad nonce!' }), '400:Invalid nonce');
    await expectOutcome(client(path, { app_id: owner.app_id, license: 'K' }, { 'content-digest': 'sha-256=:AAAA:' }), '400:Invalid Content-Digest');
    await expectOutcome(client(path, { app_id: owner.app_id, license: 'x'.repeat(70 * 1024) }), '413:Request body too large');
  });

  it('/register: success, every 400 message and its 403s', async () => {
    const base = { app_id: owner.app_id, license: (await license()).key };
    const name = `reg-${newId().slice(0, 8)}`;
    await expectOutcome(client('/register', { ...base, username: name, password: 'correct horse' }), '200:License credentials updated successfully');
    await expectOutcome(client('/register', '{'), '400:Invalid JSON in request body');
    await expectOutcome(client('/register', {}), '400:App ID is required');
    await expectOutcome(client('/register', { app_id: 'nope' }), '400:Invalid App ID format (must be a valid UUID)');
    await expectOutcome(client('/register', { app_id: owner.app_id }), '400:License key is required');
    await expectOutcome(client('/register', { ...base }), '400:Username is required');
    await expectOutcome(client('/register', { ...base, username: 'ana' }), '400:Password is required');
    await expectOutcome(client('/register', { ...base, username: 'an', password: 'correct horse' }), '400:Username must be 3 to 50 characters');
    await expectOutcome(client('/register', { ...base, username: 'ana', password: 'short' }), '400:Password must be at least 8 characters');
    await expectOutcome(client('/register', { ...base, username: 'ana', password: 'é'.repeat(40) }), '400:Password must be at most 72 bytes');
    await expectOutcome(client('/register', { ...base, username: 'ana', password: 'correct horse', nonce: '!' }), '400:Invalid nonce');
    await expectOutcome(client('/register', { ...base, username: 'ana', password: 'correct horse' }, { 'content-digest': 'md5=:AAAA:' }), '400:Invalid Content-Digest');
    await expectOutcome(client('/register', { ...base, padding: 'x'.repeat(70 * 1024) }), '413:Request body too large');
    await expectOutcome(client('/register', { ...base, app_id: newId(), username: 'ana', password: 'correct horse' }), '403:INVALID_APP_ID');
    await expectOutcome(client('/register', { ...base, license: 'NO-SUCH-KEY', username: 'ana', password: 'correct horse' }), '403:LICENSE_NOT_FOUND');
    await expectOutcome(client('/register', { app_id: owner.app_id, license: (await license()).key, username: name, password: 'correct horse' }), '403:USERNAME_TAKEN');
  });

  it.each(['/auth', '/reset-hwid', '/release', '/usage', '/license-file', '/license-file/return'] as const)('%s: the 403s it shares with the others', async (path) => {
    // /usage reads a counter besides /auth's body: with one, its checks run as /auth's do.
    const counter = path === '/usage' ? { counter: 'exports' } : {};
    // /license-file needs an HWID; a return names the license and device in its code (any jti: the license's checks come first).
    const shaped = (body: Record<string, unknown>) =>
      path === '/license-file/return'
        ? { request: `lfx1.${Buffer.from(JSON.stringify({ app_id: body.app_id, license: body.license, hwid: body.hwid ?? 'shared-pc', jti: 'contract-jti' })).toString('base64url')}` }
        : path === '/license-file'
          ? { hwid: 'shared-pc', ...body }
          : body;
    const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) => client(path, shaped({ ...body, ...counter }), headers);
    const call = (body: Record<string, unknown>) => post({ app_id: owner.app_id, ...body });
    await expectOutcome(post({ app_id: newId(), license: 'K' }), '403:INVALID_APP_ID');
    await expectOutcome(call({ license: 'NO-SUCH-KEY' }), '403:LICENSE_NOT_FOUND');
    if (path !== '/license-file/return') await expectOutcome(call({ username: 'nobody-at-all', password: 'wrong password' }), '403:INVALID_USERNAME_OR_PASSWORD');
    await expectOutcome(call({ license: (await license({ status: 'paused' })).key }), '403:LICENSE_NOT_ACTIVE');
    const lapsed = await license({ first_used_at: '2020-01-01T00:00:00.000Z', expires_at: '2020-01-31T00:00:00.000Z' });
    const expired = await expectOutcome(call({ license: lapsed.key }), '403:LICENSE_EXPIRED');
    expect(expired.body.data).toEqual({ expires_at: lapsed.expires_at });
    await expectOutcome(call({ license: (await license({ subscription_id: newId() })).key }), '403:SUBSCRIPTION_ERROR');
    await expectOutcome(call({ license: (await seedLicense(env.deps, await seedSubscription(env.deps, owner, { status: 'inactive' }))).key }), '403:SUBSCRIPTION_NOT_ACTIVE');

    const inactive = await createOwner(env.deps);
    const inactiveKey = (await seedLicense(env.deps, await seedSubscription(env.deps, inactive))).key;
    await apps.update(env.deps.table, inactive.app_id, { status: 'inactive' });
    await expectOutcome(post({ app_id: inactive.app_id, license: inactiveKey }), '403:APPLICATION_NOT_ACTIVE');
    const lapsedTeam = await createOwner(env.deps);
    const lapsedKey = (await seedLicense(env.deps, await seedSubscription(env.deps, lapsedTeam))).key;
    await teams.setPlanExpiry(env.deps.table, lapsedTeam.team_id, '2020-01-01T00:00:00.000Z');
    await expectOutcome(post({ app_id: lapsedTeam.app_id, license: lapsedKey }), '403:TEAM_ERROR');

    const listed = await createOwner(env.deps);
    const listedKey = (await seedLicense(env.deps, await seedSubscription(env.deps, listed), { hwid: 'banned-pc', hwid_lock: true })).key;
    await blacklist(env, listed.app_id, 'country', 'KP');
    await blacklist(env, listed.app_id, 'asn', '64500');
    await expectOutcome(post({ app_id: listed.app_id, license: listedKey }, { 'CloudFront-Viewer-Country': 'KP' }), '403:COUNTRY_BLACKLISTED');
    await expectOutcome(post({ app_id: listed.app_id, license: listedKey }, { 'CloudFront-Viewer-ASN': '64500' }), '403:ASN_BLACKLISTED');
    await blacklist(env, listed.app_id, 'hwid', 'banned-pc');
    await expectOutcome(post({ app_id: listed.app_id, license: listedKey, hwid: 'banned-pc' }), '403:HWID_BLACKLISTED');
    await blacklist(env, listed.app_id, 'ip', '127.0.0.1');
    await expectOutcome(post({ app_id: listed.app_id, license: listedKey }), '403:IP_BLACKLISTED');
  });

  it('/auth: the device 403s', async () => {
    const locked = await license({ hwid_lock: true, hwid: 'pc-a', first_used_at: clock.now().toISOString(), expires_at: new Date(clock.now().getTime() + 86400_000).toISOString() });
    await expectOutcome(auth({ license: locked.key }), '403:HWID_NOT_PROVIDED');
    const mismatch = await expectOutcome(auth({ license: locked.key, hwid: 'pc-b' }), '403:HWID_MISMATCH');
    expect(Object.keys(mismatch.body.data).sort()).toEqual(['hwid_reset_allowed', 'hwid_reset_cooldown', 'last_hwid_reset_at']);
    const first = await seedLicense(env.deps, exclusive, { hwid_lock: true });
    const second = await seedLicense(env.deps, exclusive, { hwid_lock: true });
    await expectOutcome(auth({ license: first.key, hwid: 'claimed-pc' }), '200:LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY');
    await expectOutcome(auth({ license: second.key, hwid: 'claimed-pc' }), '403:DEVICE_ALREADY_REGISTERED_WITH_OTHER_LICENSE');
  });

  it('/auth on a floating license: the lease, a borrow with its token, SEATS_EXHAUSTED, LICENSE_NOT_FLOATING and Invalid borrow_seconds', async () => {
    const seat = await floating();
    const held = await expectOutcome(auth({ license: seat.key, hwid: 'float-a' }), '200:LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY');
    expect(held.body.data.lease_expires_at).toBe(new Date(clock.now().getTime() + 3600_000).toISOString());
    const full = await expectOutcome(auth({ license: seat.key, hwid: 'float-b' }), '403:SEATS_EXHAUSTED');
    expect(full.body.data).toEqual({ max_devices: 1, next_seat_at: held.body.data.lease_expires_at });
    const borrowed = await expectOutcome(auth({ license: (await floating()).key, hwid: 'float-c', borrow_seconds: 600 }), '200:LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY');
    expect(typeof borrowed.body.data.offline_token).toBe('string');
    await expectOutcome(auth({ license: (await license()).key, borrow_seconds: 600 }), '403:LICENSE_NOT_FLOATING');
    await expectOutcome(auth({ license: seat.key, hwid: 'float-a', borrow_seconds: 59 }), '400:Invalid borrow_seconds');
  });

  it('/release: success and its own 403s', async () => {
    const seat = await floating({ max_devices: 2 });
    await auth({ license: seat.key, hwid: 'rel-a' });
    await auth({ license: seat.key, hwid: 'rel-b' });
    const released = await expectOutcome(release({ license: seat.key, hwid: 'rel-a' }), '200:SEAT_RELEASED');
    expect(released.body.data).toMatchObject({ hwids: ['rel-b'], max_devices: 2, lease_expires_at: null });
    await expectOutcome(release({ license: seat.key }), '403:HWID_NOT_PROVIDED');
    await expectOutcome(release({ license: (await license()).key, hwid: 'rel-a' }), '403:LICENSE_NOT_FLOATING');
    await expectOutcome(release({ license: seat.key, hwid: 'rel-a' }), '403:HWID_NOT_BOUND');
    await auth({ license: seat.key, hwid: 'rel-c', borrow_seconds: 600 });
    const borrowed = await expectOutcome(release({ license: seat.key, hwid: 'rel-c' }), '403:LEASE_BORROWED');
    expect(Object.keys(borrowed.body.data)).toEqual(['lease_expires_at']);
    await expectOutcome(reset({ license: seat.key, hwid: 'rel-c' }), '403:LEASE_BORROWED');
  });

  it('/usage: success, every 400 message and its own 403s', async () => {
    const used = { first_used_at: clock.now().toISOString(), expires_at: new Date(clock.now().getTime() + 86400_000).toISOString() };
    const metered = await license({ ...used, usage_limits: { exports: { limit: 1, period: 'month', overage: 0 } } });
    const usage = (body: Record<string, unknown>, headers: Record<string, string> = {}) => client('/usage', { app_id: owner.app_id, ...body }, headers);
    const counted = await expectOutcome(usage({ license: metered.key, counter: 'exports', usage_id: 'contract-usage-1', nonce: 'contract-nonce-2' }), '200:USAGE_RECORDED');
    expect(counted.headers.get('signature-input')).toContain('nonce="contract-nonce-2"');
    const refused = await expectOutcome(usage({ license: metered.key, counter: 'exports' }), '403:USAGE_LIMIT_REACHED');
    expect(refused.body.data).toMatchObject({ counter: 'exports', used: 1, remaining: 0 });
    await expectOutcome(usage({ license: metered.key, counter: 'imports' }), '403:USAGE_COUNTER_UNKNOWN');
    await expectOutcome(usage({ license: (await license()).key, counter: 'exports' }), '403:LICENSE_NOT_ACTIVATED');
    const locked = await license({ ...used, hwid_lock: true, hwid: 'pc-a' });
    await expectOutcome(usage({ license: locked.key, counter: 'exports' }), '403:HWID_NOT_PROVIDED');
    await expectOutcome(usage({ license: locked.key, counter: 'exports', hwid: 'pc-b' }), '403:HWID_MISMATCH');
    await expectOutcome(usage({ license: 'NO-SUCH-KEY', counter: 'exports' }), '403:LICENSE_NOT_FOUND');

    await expectOutcome(client('/usage', '{"app_id":'), '400:Invalid JSON in request body');
    await expectOutcome(client('/usage', {}), '400:App ID is required');
    await expectOutcome(client('/usage', { app_id: 'nope' }), '400:Invalid App ID format (must be a valid UUID)');
    await expectOutcome(usage({}), '400:No valid authentication method provided (missing license key or username/password)');
    await expectOutcome(usage({ license: 'K', hwid: 7, counter: 'exports' }), '400:HWID must be a string of at most 256 characters');
    await expectOutcome(usage({ license: 'K', hwid: '__proto__', counter: 'exports' }), '400:HWID must not be "__proto__"');
    await expectOutcome(usage({ license: 'K', counter: 'exports', nonce: 'bad nonce!' }), '400:Invalid nonce');
    for (const bad of [{}, { counter: 'Exports' }, { counter: 'exports', amount: 0 }, { counter: 'exports', amount: 1_000_001 }, { counter: 'exports', amount: 1.5 }, { counter: 'exports', usage_id: 'short' }]) {
      await expectOutcome(usage({ license: 'K', ...bad }), '400:Invalid usage request');
    }
    await expectOutcome(usage({ license: 'K', counter: 'exports' }, { 'content-digest': 'sha-256=:AAAA:' }), '400:Invalid Content-Digest');
    await expectOutcome(usage({ license: 'x'.repeat(70 * 1024), counter: 'exports' }), '413:Request body too large');
  });

  it('/reset-hwid: success and its own 403s', async () => {
    const bound = await license({ hwid_lock: true, hwid: 'old-pc', hwid_reset_interval: 604800 });
    await expectOutcome(reset({ license: bound.key, hwid: 'old-pc' }), '200:HWID_RESET');
    await expectOutcome(reset({ license: bound.key }), '403:HWID_NOT_BOUND');
    await auth({ license: bound.key, hwid: 'new-pc' });
    const cooldown = await expectOutcome(reset({ license: bound.key, hwid: 'new-pc' }), '403:HWID_RESET_COOLDOWN');
    expect(Object.keys(cooldown.body.data).sort()).toEqual(['hwid_reset_cooldown', 'last_hwid_reset_at', 'next_reset_at']);
    await expectOutcome(reset({ license: (await license({ hwid: 'pc', hwid_lock: true, hwid_reset_allowed: false })).key, hwid: 'pc' }), '403:HWID_RESET_NOT_ALLOWED');
  });

  it('/license-file: the four success messages, a file from an activation request, every 400 message and its device 403s', async () => {
    const file = (body: Record<string, unknown>, headers: Record<string, string> = {}) => client('/license-file', { app_id: owner.app_id, ...body }, headers);
    const used = { first_used_at: clock.now().toISOString(), expires_at: new Date(clock.now().getTime() + 86400_000).toISOString() };
    await expectOutcome(file({ license: (await license()).key, hwid: 'file-pc' }), '200:LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY');
    const locked = await license({ hwid_lock: true });
    const signed = await expectOutcome(file({ license: locked.key, hwid: 'file-pc', nonce: 'contract-nonce-3', encrypt: true }), '200:LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY');
    expect(signed.headers.get('signature-input')).toContain('nonce="contract-nonce-3"');
    await expectOutcome(file({ license: locked.key, hwid: 'file-pc', lifetime_seconds: 3600 }), '200:LICENSE_VERIFIED_USED_AND_LOCKED_KEY');
    await expectOutcome(file({ license: (await license(used)).key, hwid: 'file-pc' }), '200:LICENSE_VERIFIED_USED_AND_UNLOCKED_KEY');
    const request = `lfr1.${Buffer.from(JSON.stringify({ app_id: owner.app_id, license: (await license({ hwid_lock: true })).key, hwid: 'air-pc', nonce: 'contract-nonce-4' })).toString('base64url')}`;
    const airGapped = await expectOutcome(client('/license-file', { request }), '200:LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY');
    expect(airGapped.headers.get('signature-input')).toContain('nonce="contract-nonce-4"');

    await expectOutcome(client('/license-file', '{"app_id":'), '400:Invalid JSON in request body');
    await expectOutcome(client('/license-file', { request: 'lfr1.!' }), '400:Invalid activation request');
    await expectOutcome(client('/license-file', {}), '400:App ID is required');
    await expectOutcome(client('/license-file', { app_id: 'nope' }), '400:Invalid App ID format (must be a valid UUID)');
    await expectOutcome(file({ hwid: 'pc' }), '400:No valid authentication method provided (missing license key or username/password)');
    await expectOutcome(file({ license: 'K', hwid: 7 }), '400:HWID must be a string of at most 256 characters');
    await expectOutcome(file({ license: 'K', hwid: '__proto__' }), '400:HWID must not be "__proto__"');
    await expectOutcome(file({ license: 'K', hwid: 'pc', nonce: 'bad nonce!' }), '400:Invalid nonce');
    await expectOutcome(file({ license: 'K', hwid: 'pc', lifetime_seconds: 0 }), '400:Invalid license file request');
    await expectOutcome(file({ license: 'K', hwid: 'pc' }, { 'content-digest': 'sha-256=:AAAA:' }), '400:Invalid Content-Digest');
    await expectOutcome(file({ license: 'x'.repeat(70 * 1024), hwid: 'pc' }), '413:Request body too large');

    const bound = await license({ ...used, hwid_lock: true, hwid: 'pc-a' });
    await expectOutcome(file({ license: bound.key, hwid: 'pc-b' }), '403:HWID_MISMATCH');
    const seat = await floating();
    await expectOutcome(file({ license: seat.key, hwid: 'file-float-a' }), '200:LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY');
    await expectOutcome(file({ license: seat.key, hwid: 'file-float-b' }), '403:SEATS_EXHAUSTED');
    await expectOutcome(file({ license: (await seedLicense(env.deps, exclusive, { hwid_lock: true })).key, hwid: 'file-claimed-pc' }), '200:LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY');
    await expectOutcome(file({ license: (await seedLicense(env.deps, exclusive, { hwid_lock: true })).key, hwid: 'file-claimed-pc' }), '403:DEVICE_ALREADY_REGISTERED_WITH_OTHER_LICENSE');
  });

  it('/license-file/return: success, every 400 message and the reset 403s', async () => {
    const returning = (key: string, hwid: string, jti: string) => ({ request: `lfx1.${Buffer.from(JSON.stringify({ app_id: owner.app_id, license: key, hwid, jti })).toString('base64url')}` });
    const issue = async (key: string, hwid: string) => {
      const { body } = await client('/license-file', { app_id: owner.app_id, license: key, hwid });
      return JSON.parse(Buffer.from(body.data.license_file.split('.')[1], 'base64url').toString()).jti as string;
    };
    const timed = await license({ hwid_lock: true, hwid_reset_interval: 604800 });
    const first = await issue(timed.key, 'ret-a');
    const returned = await expectOutcome(client('/license-file/return', { ...returning(timed.key, 'ret-a', first), nonce: 'contract-nonce-5' }), '200:LICENSE_FILE_RETURNED');
    expect(returned.headers.get('signature-input')).toContain('nonce="contract-nonce-5"');
    const second = await issue(timed.key, 'ret-b');
    const cooldown = await expectOutcome(client('/license-file/return', returning(timed.key, 'ret-b', second)), '403:HWID_RESET_COOLDOWN');
    expect(Object.keys(cooldown.body.data).sort()).toEqual(['hwid_reset_cooldown', 'last_hwid_reset_at', 'next_reset_at']);
    const fixed = await license({ hwid_lock: true, hwid_reset_allowed: false });
    await expectOutcome(client('/license-file/return', returning(fixed.key, 'ret-c', await issue(fixed.key, 'ret-c'))), '403:HWID_RESET_NOT_ALLOWED');
    const removed = await license({ hwid_lock: true });
    const removedJti = await issue(removed.key, 'ret-d');
    await manage('/hwid/remove', { license_key: removed.key, hwid: 'ret-d' });
    await expectOutcome(client('/license-file/return', returning(removed.key, 'ret-d', removedJti)), '403:HWID_NOT_BOUND');

    await expectOutcome(client('/license-file/return', '{"request":'), '400:Invalid JSON in request body');
    await expectOutcome(client('/license-file/return', returning(timed.key, 'ret-a', first)), '400:Invalid return code');
    await expectOutcome(client('/license-file/return', { ...returning(timed.key, 'ret-b', second), nonce: 'bad nonce!' }), '400:Invalid nonce');
    await expectOutcome(client('/license-file/return', returning(timed.key, 'ret-b', second), { 'content-digest': 'sha-256=:AAAA:' }), '400:Invalid Content-Digest');
    await expectOutcome(client('/license-file/return', { request: 'x'.repeat(70 * 1024) }), '413:Request body too large');
  });

  it('/trial: both successes, every 400 message and each 403 in its order', async () => {
    const trialOwner = await createOwner(env.deps);
    const tier = await seedSubscription(env.deps, trialOwner, { name: 'Trial', level: 1, single_key_per_hwid: true });
    const trial = (body: Record<string, unknown>, headers: Record<string, string> = {}) => client('/trial', { app_id: trialOwner.app_id, ...body }, headers);
    const configure = (trialSettings: Record<string, unknown> | null) =>
      request(env.server.url, '/app/settings', 'POST', { app_id: trialOwner.app_id, trial: trialSettings && { subscription_id: tier.subscription_id, duration_seconds: 3600, ...trialSettings } }, trialOwner.auth);

    await expectOutcome(trial({ hwid: 'trial-pc' }), '403:TRIALS_DISABLED');
    await configure({ per_ip_per_day: 3 });
    const started = await expectOutcome(trial({ hwid: 'trial-pc', nonce: 'contract-nonce-3' }), '200:TRIAL_STARTED');
    expect(started.headers.get('signature-input')).toContain('nonce="contract-nonce-3"');
    await expectOutcome(trial({ hwid: 'trial-pc' }), '200:TRIAL_RESUMED');
    const bought = await seedLicense(env.deps, tier, { hwid_lock: true });
    await request(env.server.url, '/auth', 'POST', { app_id: trialOwner.app_id, license: bought.key, hwid: 'bought-pc' });
    await expectOutcome(trial({ hwid: 'bought-pc' }), '403:DEVICE_ALREADY_REGISTERED_WITH_OTHER_LICENSE');
    await expectOutcome(trial({ hwid: 'trial-pc-2' }), '200:TRIAL_STARTED');
    await expectOutcome(trial({ hwid: 'trial-pc-3' }), '200:TRIAL_STARTED');
    await expectOutcome(trial({ hwid: 'trial-pc-4' }), '403:TRIAL_LIMIT_REACHED');
    await request(env.server.url, '/hwid/edit', 'POST', { license_key: started.body.data.license, hwid: 'another-pc' }, trialOwner.auth);
    await expectOutcome(trial({ hwid: 'trial-pc' }), '403:HWID_MISMATCH');
    await request(env.server.url, '/license/update-status', 'POST', { license_key: started.body.data.license, status: 'paused' }, trialOwner.auth);
    await expectOutcome(trial({ hwid: 'trial-pc' }), '403:LICENSE_NOT_ACTIVE');
    clock.advance(3600);
    const ended = await expectOutcome(trial({ hwid: 'trial-pc-2' }), '403:TRIAL_EXPIRED');
    expect(Object.keys(ended.body.data)).toEqual(['expires_at']);
    clock.advance(-3600);

    await expectOutcome(client('/trial', '{"app_id":'), '400:Invalid JSON in request body');
    await expectOutcome(client('/trial', { hwid: 'pc' }), '400:App ID is required');
    await expectOutcome(client('/trial', { app_id: 'nope', hwid: 'pc' }), '400:Invalid App ID format (must be a valid UUID)');
    await expectOutcome(trial({}), '400:Invalid hwid');
    await expectOutcome(trial({ hwid: 'pc', nonce: 'bad nonce!' }), '400:Invalid nonce');
    await expectOutcome(trial({ hwid: 'pc' }, { 'content-digest': 'sha-256=:AAAA:' }), '400:Invalid Content-Digest');
    await expectOutcome(trial({ hwid: 'x'.repeat(70 * 1024) }), '413:Request body too large');
    await expectOutcome(client('/trial', { app_id: newId(), hwid: 'pc' }), '403:INVALID_APP_ID');
    for (const [type, value, headers] of [['country', 'KP', { 'CloudFront-Viewer-Country': 'KP' }], ['asn', '64500', { 'CloudFront-Viewer-ASN': '64500' }], ['hwid', 'banned-pc', {}], ['ip', '127.0.0.1', {}]] as const) {
      await blacklist(env, trialOwner.app_id, type, value);
      await expectOutcome(trial({ hwid: 'banned-pc' }, headers), `403:${type.toUpperCase()}_BLACKLISTED`);
      await request(env.server.url, '/blacklist/delete', 'POST', { app_id: trialOwner.app_id, type, value }, trialOwner.auth);
    }
    await apps.update(env.deps.table, trialOwner.app_id, { status: 'inactive' });
    await expectOutcome(trial({ hwid: 'pc' }), '403:APPLICATION_NOT_ACTIVE');
    await apps.update(env.deps.table, trialOwner.app_id, { status: 'active' });
    await teams.setPlanExpiry(env.deps.table, trialOwner.team_id, '2020-01-01T00:00:00.000Z');
    await expectOutcome(trial({ hwid: 'pc' }), '403:TEAM_ERROR');
    await teams.setPlanExpiry(env.deps.table, trialOwner.team_id, null);
    await request(env.server.url, '/subscription/edit', 'POST', { subscription_id: tier.subscription_id, status: 'inactive' }, trialOwner.auth);
    await expectOutcome(trial({ hwid: 'pc-5' }), '403:SUBSCRIPTION_NOT_ACTIVE');
    await request(env.server.url, '/subscription/delete', 'POST', { subscription_id: tier.subscription_id }, trialOwner.auth);
    await expectOutcome(trial({ hwid: 'pc-5' }), '403:SUBSCRIPTION_ERROR');
    await env.deps.table.doc.send(
      new UpdateCommand({ TableName: env.deps.table.name, Key: keys.license(started.body.data.license), UpdateExpression: 'SET tags = :tags', ExpressionAttributeValues: { ':tags': ['trial-converted'] } }),
    );
    await expectOutcome(trial({ hwid: 'trial-pc' }), '403:TRIAL_CONVERTED');
  });

  it('answers 429 RATE_LIMITED with Retry-After on every client route once the application is over the limit', async () => {
    const throttledOwner = await createOwner(throttled.deps);
    await request(throttled.server.url, '/auth', 'POST', { app_id: throttledOwner.app_id, license: 'K' });
    for (const path of ['/auth', '/register', '/reset-hwid', '/release', '/usage', '/license-file', '/license-file/return', '/trial'] as const) {
      await expectOutcome(send(throttled, path, { app_id: throttledOwner.app_id, license: 'K', username: 'ana', password: 'correct horse', counter: 'exports', hwid: 'pc' }), '429:RATE_LIMITED');
    }
  });
});

describe('the whole document', () => {
  it('was met by every answer above', () => {
    expect(problems).toEqual([]);
  });

  it('gives examples with the fields of real answers', () => {
    // Present only on some answers: seats on multi-seat licenses, the token when asked for, an audit entry's changes.
    const conditional = new Set(['hwids', 'max_devices', 'offline_token', 'before', 'after', 'lease_seconds', 'floating', 'leases', 'lease_expires_at', 'features', 'grace_until', 'files']);
    const fields = (value: unknown): string[] => {
      const item = Array.isArray(value) ? value[0] : value;
      return item && typeof item === 'object' ? Object.keys(item).filter((key) => !conditional.has(key)).sort() : [];
    };
    const differing: string[] = [];
    for (const [path, real] of successes) {
      if (Array.isArray(real.data) && real.data.length === 0) continue;
      const { responses } = document.paths[path].post;
      const example = (responses['200'] ?? responses['202']).content['application/json'].example;
      if (JSON.stringify(fields(example.data)) !== JSON.stringify(fields(real.data))) differing.push(`${path}: example ${fields(example.data)} / answer ${fields(real.data)}`);
    }
    expect(successes.size).toBe(routes.length);
    expect(differing).toEqual([]);
  });

  it('lists no outcome these requests did not produce, except those only faults and races cause', () => {
    const missing: string[] = [];
    // The inbound route's outcomes are produced by test/integration/stripe-webhook.test.ts.
    const routePaths = new Set<string>(routes.map((route) => route.path));
    for (const [path, item] of (Object.entries(document.paths) as [RoutePath, any][]).filter(([path]) => routePaths.has(path))) {
      const seen = produced.get(path) ?? new Set<string>();
      for (const [status, response] of Object.entries(item.post.responses) as [string, any][]) {
        const schema = response.content['application/json'].schema;
        const documented: string[] =
          status === '200' || status === '202'
            ? (document.components.schemas[schema.$ref.split('/').pop()].properties.message?.enum ?? [''])
            : status === '403' && schema.oneOf
              ? schema.oneOf.flatMap((variant: any) => variant.properties.message.enum ?? [variant.properties.message.const])
              : (schema.allOf[1].properties.error_code ?? schema.allOf[1].properties.message).enum;
        for (const code of documented) {
          if (!seen.has(`${status}:${code}`) && !(code in elsewhere)) missing.push(`${path} ${status}:${code}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
