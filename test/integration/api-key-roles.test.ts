import { roleMayCall } from '../../functions/access';
import { roles } from '#shared/roles';
import { needsApiKey, routes } from '../../functions/routes';
import { startTestServer, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { scanTable } from '../support/licenses';
import { createOwner, keyOf, type Owner } from '../support/owners';
import { seedWebhook } from '../support/webhooks';

/**
 * API-key roles and application limits over HTTP, through the local server's
 * authorizer and the group handlers, as on AWS (docs/api-keys.md).
 */
let env: TestServer;
let owner: Owner;
let other: Owner;
let keys: Record<(typeof roles)[number], Record<string, string>>;

const managementRoutes = routes.filter(needsApiKey);

beforeAll(async () => {
  env = await startTestServer();
  [owner, other] = await Promise.all([createOwner(env.deps), createOwner(env.deps)]);
  const made = await Promise.all(roles.map(async (role) => [role, (await keyOf(env.deps, owner, role)).auth] as const));
  keys = Object.fromEntries(made) as typeof keys;
}, 60_000);
afterAll(() => env.close());

describe('each role on each management route of the route table', () => {
  it.each(roles)('%s: the routes its role allows reach their handler, the others answer 403 ACCESS_DENIED before the body is read', async (role) => {
    const outcomes: { path: string; outcome: string }[] = [];
    for (const route of managementRoutes) {
      // `{}` is bad input for every route with fields and good for those without: either way the handler answered.
      const response = await env.post(route.path, {}, keys[role]);
      outcomes.push({ path: route.path, outcome: response.status === 403 ? `403 ${response.body.error_code}` : 'reached the handler' });
    }
    expect(outcomes).toEqual(managementRoutes.map((route) => ({ path: route.path, outcome: roleMayCall(role, route) ? 'reached the handler' : '403 ACCESS_DENIED' })));
  });

  it('answers a denied route in the management error body, with CORS like every management answer', async () => {
    const response = await env.post('/license/create', {}, keys.read_only);
    expect({ status: response.status, body: response.body }).toEqual({ status: 403, body: { error: 'Access denied', error_code: 'ACCESS_DENIED' } });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('checks the API key before the role: a revoked or unknown key is still 401', async () => {
    const unknown = await env.post('/license/create', {}, { 'x-api-key': `lsk_${'x'.repeat(43)}` });
    expect({ status: unknown.status, code: unknown.body.error_code }).toEqual({ status: 401, code: 'INVALID_API_KEY' });
  });

  it('gives a key made before roles (no role stored) full rights', async () => {
    for (const route of managementRoutes) {
      const response = await env.post(route.path, {}, owner.auth);
      expect({ path: route.path, status: response.status }).not.toEqual({ path: route.path, status: 403 });
    }
  });
});

describe('a read_only key', () => {
  it('changes nothing in the table on any route, whatever the body', async () => {
    const subscription = await seedSubscription(env.deps, owner);
    const license = await seedLicense(env.deps, subscription);
    const webhook = await seedWebhook(env, owner);
    const body = {
      app_id: owner.app_id,
      subscription_id: subscription.subscription_id,
      license_key: license.key,
      license_keys: [license.key],
      webhook_id: webhook.webhook_id,
      status: 'paused',
      extend_seconds: 3600,
      hwid: 'x',
      role: 'admin',
      name: 'x',
      key_amount: 1,
      duration_unit: 'days',
      duration_value: 1,
    };
    const before = await scanTable(env.deps);
    for (const route of managementRoutes) {
      const response = await env.post(route.path, body, keys.read_only);
      if (route.access !== 'read') expect({ path: route.path, status: response.status }).toEqual({ path: route.path, status: 403 });
    }
    expect(await scanTable(env.deps)).toEqual(before);
  });
});

/** A key limited to applications on every route: test/integration/isolation-app-scope.test.ts. */
describe('a key limited to one application of its team', () => {
  let limited: Record<string, string>;

  beforeAll(async () => {
    limited = (await keyOf(env.deps, owner, 'admin', [owner.app_id])).auth;
  });

  it('still works on its own application', async () => {
    const tier = await seedSubscription(env.deps, owner);
    const created = await env.post('/license/create', { app_id: owner.app_id, subscription_id: tier.subscription_id, duration_unit: 'days', duration_value: 1 }, limited);
    expect(created.status).toBe(200);
    const toggled = await env.post('/hwid/toggle-lock-bulk', { license_keys: [created.body.data.key], hwid_lock: true }, limited);
    expect(toggled.body.data).toEqual({ succeeded: [created.body.data.key], failed: [] });
  });
});

describe('/apikey/create, /apikey/list, /apikey/revoke, /apikey/current', () => {
  it('shows a new key once: the answer has it, the listing only its first characters, and it works with its role', async () => {
    const created = await env.post('/apikey/create', { role: 'support', name: '  Support desk ' }, keys.admin);
    expect(created.status).toBe(200);
    const { api_key: apiKey, ...view } = created.body.data;
    expect(view).toMatchObject({ role: 'support', name: 'Support desk', apps: null, status: 'active', revoked_at: null });
    expect(apiKey.startsWith(view.hint)).toBe(true);

    const listed = await env.post('/apikey/list', {}, keys.admin);
    const entry = listed.body.data.find((key: { key_id: string }) => key.key_id === view.key_id);
    expect(entry).toEqual(view);
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain(apiKey);
    expect(text).not.toContain('key_hash');
    expect(listed.body.data.every((key: Record<string, unknown>) => !('api_key' in key))).toBe(true);

    const auth = { 'x-api-key': apiKey };
    expect((await env.post('/apikey/current', {}, auth)).body.data).toEqual({ role: 'support', apps: null });
    expect((await env.post('/license/extend', {}, auth)).status).toBe(400);
    expect((await env.post('/license/create', {}, auth)).status).toBe(403);
  });

  it('lists only the team’s own keys', async () => {
    const ours = await env.post('/apikey/list', {}, keys.admin);
    const theirs = await keyOf(env.deps, other, 'admin');
    expect(ours.body.data.map((key: { key_id: string }) => key.key_id)).not.toContain(theirs.key_id);
    expect(ours.body.data.map((key: { role: string }) => key.role)).toEqual(expect.arrayContaining([...roles]));
  });

  it('revokes a key: it then answers 401 INVALID_API_KEY, and revoking again answers the same', async () => {
    const victim = await keyOf(env.deps, owner, 'manager');
    expect((await env.post('/app/list', {}, victim.auth)).status).toBe(200);
    const revoked = await env.post('/apikey/revoke', { key_id: victim.key_id }, keys.admin);
    expect(revoked.body.data).toMatchObject({ key_id: victim.key_id, status: 'revoked' });
    const again = await env.post('/apikey/revoke', { key_id: victim.key_id }, keys.admin);
    expect(again.body.data).toEqual(revoked.body.data);
    const refused = await env.post('/app/list', {}, victim.auth);
    expect({ status: refused.status, code: refused.body.error_code }).toEqual({ status: 401, code: 'INVALID_API_KEY' });
  });

  it('refuses another team’s key id, and an id that is no key, as ACCESS_DENIED, and leaves that key working', async () => {
    const theirs = await keyOf(env.deps, other, 'admin');
    for (const keyId of [theirs.key_id, '00000000-0000-4000-8000-000000000000']) {
      const response = await env.post('/apikey/revoke', { key_id: keyId }, keys.admin);
      expect({ status: response.status, code: response.body.error_code }).toEqual({ status: 403, code: 'ACCESS_DENIED' });
    }
    expect((await env.post('/app/list', {}, theirs.auth)).status).toBe(200);
  });

  it('is for admins: every other role gets 403 on create, list and revoke', async () => {
    const target = await keyOf(env.deps, owner, 'read_only');
    for (const role of ['manager', 'support', 'read_only'] as const) {
      for (const [path, body] of [['/apikey/create', { role: 'admin' }], ['/apikey/list', {}], ['/apikey/revoke', { key_id: target.key_id }]] as const) {
        const response = await env.post(path, body, keys[role]);
        expect({ role, path, status: response.status, code: response.body.error_code }).toEqual({ role, path, status: 403, code: 'ACCESS_DENIED' });
      }
    }
    expect((await env.post('/app/list', {}, target.auth)).status).toBe(200);
  });

  it('gives a key made by a key limited to applications the same applications, never more', async () => {
    const limitedAdmin = await keyOf(env.deps, owner, 'admin', [owner.app_id]);
    const made = await env.post('/apikey/create', { role: 'read_only' }, limitedAdmin.auth);
    expect(made.body.data.apps).toEqual([owner.app_id]);
    expect((await env.post('/apikey/current', {}, { 'x-api-key': made.body.data.api_key })).body.data).toEqual({ role: 'read_only', apps: [owner.app_id] });
  });

  it('rejects a role that does not exist and unknown fields as INVALID_INPUT', async () => {
    for (const body of [{ role: 'owner' }, { role: 'admin', team_id: other.team_id }, { role: 'admin', apps: [] }]) {
      const response = await env.post('/apikey/create', body, keys.admin);
      expect({ status: response.status, code: response.body.error_code }).toEqual({ status: 400, code: 'INVALID_INPUT' });
    }
  });
});
