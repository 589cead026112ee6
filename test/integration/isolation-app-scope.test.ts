import { createApp } from '../../functions/admin/owners';
import { needsApiKey, routes } from '../../functions/routes';
import type { License } from '#data/model/license';
import type { Subscription } from '#data/model/subscription';
import type { Delivery } from '#data/model/webhook';
import { startTestServer, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { scanTable } from '../support/licenses';
import { createOwner, keyOf, type Owner } from '../support/owners';
import { seedDelivery } from '../support/webhooks';

/**
 * An admin API key limited to one application of its team, on every
 * management route, aimed at the team's other application: it meets that
 * application, its tiers, licenses, webhooks, deliveries, Stripe connection
 * and the API keys that reach it as another team's, and changes nothing
 * (docs/api-keys.md#keys-limited-to-applications).
 */
let env: TestServer;
let owner: Owner;
let other: { app_id: string };
let ownTier: Subscription;
let otherTier: Subscription;
let ownLicense: License;
let otherLicense: License;
let otherDelivery: Delivery;
let limited: Record<string, string>;
const keyIds: Record<'everywhere' | 'other' | 'both' | 'own', string> = { everywhere: '', other: '', both: '', own: '' };

beforeAll(async () => {
  env = await startTestServer();
  owner = await createOwner(env.deps);
  other = await createApp(env.deps, { teamId: owner.team_id, name: 'Other' });
  const onOther = { ...owner, app_id: other.app_id };
  [ownTier, otherTier] = await Promise.all([seedSubscription(env.deps, owner), seedSubscription(env.deps, onOther)]);
  [ownLicense, otherLicense] = await Promise.all([seedLicense(env.deps, ownTier), seedLicense(env.deps, otherTier)]);
  otherDelivery = await seedDelivery(env, onOther);
  limited = (await keyOf(env.deps, owner, 'admin', [owner.app_id])).auth;
  keyIds.everywhere = (await keyOf(env.deps, owner, 'admin')).key_id;
  keyIds.other = (await keyOf(env.deps, owner, 'admin', [other.app_id])).key_id;
  keyIds.both = (await keyOf(env.deps, owner, 'read_only', [owner.app_id, other.app_id])).key_id;
  keyIds.own = (await keyOf(env.deps, owner, 'support', [owner.app_id])).key_id;
}, 60_000);
afterAll(() => env.close());

type Expected = 'ACCESS_DENIED' | 'LICENSE_NOT_FOUND' | 'every key LICENSE_NOT_FOUND';

const duration = { duration_unit: 'days', duration_value: 1 };

/** Every management route but the three that list or describe (below), with the bodies that aim at the other application. */
const attempts = (): [string, Record<string, unknown>, Expected][] => [
  ['/license/create', { app_id: other.app_id, subscription_id: otherTier.subscription_id, ...duration }, 'ACCESS_DENIED'],
  ['/license/create', { app_id: owner.app_id, subscription_id: otherTier.subscription_id, ...duration }, 'ACCESS_DENIED'],
  ['/license/create-bulk', { key_amount: 2, app_id: other.app_id, subscription_id: otherTier.subscription_id, ...duration }, 'ACCESS_DENIED'],
  ['/license/extend', { license_key: otherLicense.key, extend_seconds: 60 }, 'LICENSE_NOT_FOUND'],
  ['/license/extend-bulk', { license_keys: [otherLicense.key], extend_seconds: 60, request_id: 'scope' }, 'every key LICENSE_NOT_FOUND'],
  ['/license/delete', { license_key: otherLicense.key }, 'LICENSE_NOT_FOUND'],
  ['/license/delete-bulk', { license_keys: [otherLicense.key] }, 'every key LICENSE_NOT_FOUND'],
  ['/license/get', { license_key: otherLicense.key }, 'LICENSE_NOT_FOUND'],
  ['/license/get-bulk', { app_id: other.app_id }, 'ACCESS_DENIED'],
  ['/license/get-bulk', { app_id: owner.app_id, subscription_id: otherTier.subscription_id }, 'ACCESS_DENIED'],
  ['/license/find', { app_id: other.app_id, query: otherLicense.key }, 'ACCESS_DENIED'],
  ['/license/update-status', { license_key: otherLicense.key, status: 'paused' }, 'LICENSE_NOT_FOUND'],
  ['/license/update-status-bulk', { license_keys: [otherLicense.key], status: 'paused' }, 'every key LICENSE_NOT_FOUND'],
  ['/license/update-subscription', { license_key: otherLicense.key, subscription_id: ownTier.subscription_id }, 'LICENSE_NOT_FOUND'],
  ['/license/update-subscription', { license_key: ownLicense.key, subscription_id: otherTier.subscription_id }, 'ACCESS_DENIED'],
  ['/license/update-user-credentials', { license_key: otherLicense.key, username: 'someone' }, 'LICENSE_NOT_FOUND'],
  ['/license/update-metadata', { license_key: otherLicense.key, metadata: {} }, 'LICENSE_NOT_FOUND'],
  ['/license/update-features', { license_key: otherLicense.key, features: [] }, 'LICENSE_NOT_FOUND'],
  ['/license/update-usage-limits', { license_key: otherLicense.key, usage_limits: {} }, 'LICENSE_NOT_FOUND'],
  ['/license/reset-usage', { license_key: otherLicense.key }, 'LICENSE_NOT_FOUND'],
  ['/license/update-email', { license_key: otherLicense.key, email: 'scoped@example.com' }, 'LICENSE_NOT_FOUND'],
  ['/hwid/edit', { license_key: otherLicense.key, hwid: 'x' }, 'LICENSE_NOT_FOUND'],
  ['/hwid/toggle-lock', { license_key: otherLicense.key }, 'LICENSE_NOT_FOUND'],
  ['/hwid/toggle-lock-bulk', { license_keys: [otherLicense.key], hwid_lock: true }, 'every key LICENSE_NOT_FOUND'],
  ['/hwid/toggle-reset-allowed', { license_key: otherLicense.key }, 'LICENSE_NOT_FOUND'],
  ['/hwid/update-reset-interval', { license_key: otherLicense.key, hwid_reset_interval: 60 }, 'LICENSE_NOT_FOUND'],
  ['/hwid/set-max-devices', { license_key: otherLicense.key, max_devices: 2 }, 'LICENSE_NOT_FOUND'],
  ['/hwid/remove', { license_key: otherLicense.key, hwid: 'x' }, 'LICENSE_NOT_FOUND'],
  ['/hwid/set-lease', { license_key: otherLicense.key, lease_seconds: 60 }, 'LICENSE_NOT_FOUND'],
  ['/subscription/create', { app_id: other.app_id, name: 'Intruder', level: 1 }, 'ACCESS_DENIED'],
  ['/subscription/edit', { subscription_id: otherTier.subscription_id, level: 9 }, 'ACCESS_DENIED'],
  ['/subscription/delete', { subscription_id: otherTier.subscription_id }, 'ACCESS_DENIED'],
  ['/subscription/get-bulk', { app_id: other.app_id }, 'ACCESS_DENIED'],
  ['/blacklist/add', { app_id: other.app_id, type: 'asn', value: '1' }, 'ACCESS_DENIED'],
  ['/blacklist/delete', { app_id: other.app_id, type: 'asn', value: '1' }, 'ACCESS_DENIED'],
  ['/blacklist/get-bulk', { app_id: other.app_id }, 'ACCESS_DENIED'],
  ['/app/settings', { app_id: other.app_id, offline_token_ttl: 3600 }, 'ACCESS_DENIED'],
  ['/app/signing-key', { app_id: other.app_id }, 'ACCESS_DENIED'],
  ['/app/stats', { app_id: other.app_id }, 'ACCESS_DENIED'],
  // A new application would lie outside the key's applications from the start.
  ['/app/create', { name: 'Beyond its reach' }, 'ACCESS_DENIED'],
  ['/app/update', { app_id: other.app_id, name: 'Renamed' }, 'ACCESS_DENIED'],
  ['/app/rotate-signing-key', { app_id: other.app_id }, 'ACCESS_DENIED'],
  ['/audit/get-bulk', { app_id: other.app_id }, 'ACCESS_DENIED'],
  ['/apikey/create', { role: 'read_only', apps: [other.app_id] }, 'ACCESS_DENIED'],
  ['/apikey/create', { role: 'read_only', apps: [owner.app_id, other.app_id] }, 'ACCESS_DENIED'],
  ['/apikey/revoke', { key_id: keyIds.everywhere }, 'ACCESS_DENIED'],
  ['/apikey/revoke', { key_id: keyIds.other }, 'ACCESS_DENIED'],
  ['/apikey/revoke', { key_id: keyIds.both }, 'ACCESS_DENIED'],
  ['/webhook/create', { app_id: other.app_id, url: 'https://example.com/hooks', events: ['*'] }, 'ACCESS_DENIED'],
  ['/webhook/list', { app_id: other.app_id }, 'ACCESS_DENIED'],
  ['/webhook/update', { webhook_id: otherDelivery.webhook_id, enabled: false }, 'ACCESS_DENIED'],
  ['/webhook/delete', { webhook_id: otherDelivery.webhook_id }, 'ACCESS_DENIED'],
  ['/webhook/rotate-secret', { webhook_id: otherDelivery.webhook_id }, 'ACCESS_DENIED'],
  ['/webhook/deliveries', { webhook_id: otherDelivery.webhook_id }, 'ACCESS_DENIED'],
  ['/webhook/redeliver', { delivery_id: otherDelivery.delivery_id }, 'ACCESS_DENIED'],
  ['/integration/stripe/set', { app_id: other.app_id, webhook_secret: 'whsec_0123456789abcdef', api_key: 'rk_test_0123456789abcdef', prices: {} }, 'ACCESS_DENIED'],
  ['/integration/stripe/get', { app_id: other.app_id }, 'ACCESS_DENIED'],
  ['/integration/stripe/delete', { app_id: other.app_id }, 'ACCESS_DENIED'],
  ['/integration/stripe/licenses', { app_id: other.app_id, checkout_session: 'cs_test_1' }, 'ACCESS_DENIED'],
];

/** Routes that refuse nothing: they answer only what lies within the key's applications (checked one by one below). */
const listing = ['/app/list', '/apikey/list', '/apikey/current'];

describe('a key limited to one application, on every management route', () => {
  it('is tried on every management route of the route table', () => {
    const tried = new Set([...attempts().map(([path]) => path), ...listing]);
    expect([...tried].sort()).toEqual(routes.filter(needsApiKey).map((route) => route.path).sort());
  });

  it('meets the other application and what is in it as another team’s, and changes nothing', async () => {
    const before = await scanTable(env.deps);
    const queued = env.webhookQueue.sent.length;

    const outcomes = [];
    for (const [path, body] of attempts()) {
      const response = await env.post(path, body, limited);
      outcomes.push({
        path,
        outcome:
          response.status === 200 && Array.isArray(response.body.data?.failed) && response.body.data.succeeded.length === 0
            ? `every key ${[...new Set(response.body.data.failed.map((failure: { error_code: string }) => failure.error_code))].join()}`
            : `${response.status} ${response.body.error_code ?? 'success'}`,
      });
    }

    const status = { ACCESS_DENIED: 403, LICENSE_NOT_FOUND: 404 } as const;
    expect(outcomes).toEqual(attempts().map(([path, , expected]) => ({ path, outcome: expected.startsWith('every') ? expected : `${status[expected as keyof typeof status]} ${expected}` })));
    expect(await scanTable(env.deps)).toEqual(before);
    expect(env.webhookQueue.sent.length).toBe(queued);
  });

  it('lists only its application', async () => {
    const response = await env.post('/app/list', {}, limited);
    expect(response.body.data.map((app: { app_id: string }) => app.app_id)).toEqual([owner.app_id]);
  });

  it('lists only the keys limited to its application, itself among them, never a key that reaches further', async () => {
    const all = await env.post('/apikey/list', {}, owner.auth);
    const seen = await env.post('/apikey/list', {}, limited);
    const idsOf = (response: typeof all) => response.body.data.map((key: { key_id: string }) => key.key_id);
    expect(idsOf(all)).toEqual(expect.arrayContaining(Object.values(keyIds)));
    expect(seen.body.data.every((key: { apps: string[] | null }) => key.apps !== null && key.apps.every((appId) => appId === owner.app_id))).toBe(true);
    expect(idsOf(seen)).toContain(keyIds.own);
    expect(idsOf(seen)).not.toEqual(expect.arrayContaining([keyIds.everywhere]));
    expect(idsOf(seen)).not.toEqual(expect.arrayContaining([keyIds.other]));
    expect(idsOf(seen)).not.toEqual(expect.arrayContaining([keyIds.both]));
  });

  it('describes itself with its one application', async () => {
    expect((await env.post('/apikey/current', {}, limited)).body.data).toEqual({ role: 'admin', apps: [owner.app_id] });
  });

  it('still works on its own application: it redelivers there and revokes a key limited to it', async () => {
    const ownDelivery = await seedDelivery(env, owner);
    const redelivered = await env.post('/webhook/redeliver', { delivery_id: ownDelivery.delivery_id }, limited);
    expect(redelivered.body.data).toEqual({ delivery_id: ownDelivery.delivery_id, queued: true });
    const revoked = await env.post('/apikey/revoke', { key_id: keyIds.own }, limited);
    expect({ status: revoked.status, key: revoked.body.data.key_id, state: revoked.body.data.status }).toEqual({ status: 200, key: keyIds.own, state: 'revoked' });
  });
});
