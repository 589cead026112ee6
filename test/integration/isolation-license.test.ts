import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { hashPassword } from '#core/domain/passwords';
import { hwidIndexItem } from '#data/items';
import type { License } from '#data/model/license';
import type { Subscription } from '#data/model/subscription';
import { routes } from '../../functions/routes';
import { startTestServer, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { scanTable } from '../support/licenses';
import { createOwner, type Owner } from '../support/owners';
import * as credentials from '#data/credentials.repo';

/**
 * A second owner's API key on every license route, aimed at the first owner's
 * app, subscription and licenses: it learns nothing (another owner's license
 * answers exactly like a missing one) and changes nothing in the table.
 */
let env: TestServer;
let victim: Owner;
let intruder: Owner;
let victimSubscription: Subscription;
let intruderSubscription: Subscription;
let plain: License;
let bound: License;
let intruderLicense: License;

beforeAll(async () => {
  env = await startTestServer();
  [victim, intruder] = await Promise.all([createOwner(env.deps), createOwner(env.deps)]);
  victimSubscription = await seedSubscription(env.deps, victim, { single_key_per_hwid: true });
  intruderSubscription = await seedSubscription(env.deps, intruder);
  plain = await seedLicense(env.deps, victimSubscription, { email: 'victim.buyer@example.com' });
  const device = { hwid: 'victim-device', first_used_at: '2026-01-01T00:00:00.000Z', expires_at: '2027-01-01T00:00:00.000Z' };
  bound = await seedLicense(env.deps, victimSubscription, device);
  await env.deps.table.doc.send(
    new PutCommand({ TableName: env.deps.table.name, Item: hwidIndexItem({ app_id: victim.app_id, hwid: device.hwid, license_key: bound.key }) }),
  );
  await credentials.set(env.deps.table, bound, 'victim-user', await hashPassword('password-1', 4));
  intruderLicense = await seedLicense(env.deps, intruderSubscription);
});
afterAll(() => env.close());

type Expectation = { status: 403 | 404; code: 'ACCESS_DENIED' | 'LICENSE_NOT_FOUND' } | 'all keys not found';

const victimKeys = () => [plain.key, bound.key];
const duration = { duration_unit: 'days', duration_value: 30 };

/** Every license route with the bodies an intruder would try. */
const attempts = (): [string, Record<string, unknown>, Expectation][] => {
  const notFound = { status: 404, code: 'LICENSE_NOT_FOUND' } as const;
  const denied = { status: 403, code: 'ACCESS_DENIED' } as const;
  return [
    ['/license/create', { app_id: victim.app_id, subscription_id: victimSubscription.subscription_id, ...duration }, denied],
    ['/license/create', { app_id: intruder.app_id, subscription_id: victimSubscription.subscription_id, ...duration }, denied],
    ['/license/create-bulk', { key_amount: 5, app_id: victim.app_id, subscription_id: victimSubscription.subscription_id, ...duration }, denied],
    ['/license/create-bulk', { key_amount: 5, app_id: intruder.app_id, subscription_id: victimSubscription.subscription_id, ...duration }, denied],
    ['/license/extend', { license_key: plain.key, extend_seconds: 3600 }, notFound],
    ['/license/extend-bulk', { license_keys: victimKeys(), extend_seconds: 3600 }, 'all keys not found'],
    ['/license/extend-bulk', { license_keys: victimKeys(), extend_seconds: 3600, request_id: 'steal' }, 'all keys not found'],
    ['/license/delete', { license_key: bound.key }, notFound],
    ['/license/delete-bulk', { license_keys: victimKeys() }, 'all keys not found'],
    ['/license/get', { license_key: bound.key }, notFound],
    ['/license/get-bulk', { app_id: victim.app_id }, denied],
    ['/license/get-bulk', { app_id: intruder.app_id, subscription_id: victimSubscription.subscription_id }, denied],
    ['/license/find', { app_id: victim.app_id, query: bound.key }, denied],
    ['/license/update-status', { license_key: plain.key, status: 'paused' }, notFound],
    ['/license/update-status-bulk', { license_keys: victimKeys(), status: 'paused' }, 'all keys not found'],
    ['/license/update-subscription', { license_key: plain.key, subscription_id: intruderSubscription.subscription_id }, notFound],
    ['/license/update-subscription', { license_key: intruderLicense.key, subscription_id: victimSubscription.subscription_id }, denied],
    ['/license/update-user-credentials', { license_key: bound.key, username: 'intruder', password: 'password-9' }, notFound],
    ['/license/update-user-credentials', { license_key: plain.key, username: 'victim-user', password: 'password-9' }, notFound],
    ['/license/update-metadata', { license_key: plain.key, metadata: { owned: true } }, notFound],
    ['/license/update-features', { license_key: plain.key, features: ['stolen'] }, notFound],
    ['/license/update-usage-limits', { license_key: plain.key, usage_limits: { api: { limit: 1, period: 'day' } } }, notFound],
    ['/license/reset-usage', { license_key: plain.key }, notFound],
    ['/license/update-email', { license_key: plain.key, email: 'intruder@example.com' }, notFound],
    ['/license/update-email', { license_key: plain.key, email: null }, notFound],
    ['/license/find', { app_id: victim.app_id, query: 'victim.buyer@example.com' }, denied],
  ];
};

describe('a second owner’s API key on the license routes', () => {
  it('is tried on every license route', () => {
    const tried = new Set(attempts().map(([path]) => path));
    expect([...tried].sort()).toEqual(routes.filter((route) => route.group === 'license').map((route) => route.path).sort());
  });

  it('gets no access anywhere and changes nothing', async () => {
    const before = await scanTable(env.deps);

    for (const [path, body, expected] of attempts()) {
      const response = await env.post(path, body, intruder.auth);
      if (expected === 'all keys not found') {
        expect({ path, status: response.status, data: response.body.data }).toEqual({
          path,
          status: 200,
          data: { succeeded: [], failed: victimKeys().map((key) => ({ license_key: key, error_code: 'LICENSE_NOT_FOUND' })) },
        });
      } else {
        expect({ path, status: response.status, code: response.body.error_code }).toEqual({ path, status: expected.status, code: expected.code });
      }
    }

    expect(await scanTable(env.deps)).toEqual(before);
  });

  it('cannot tell another owner’s license from a key that does not exist', async () => {
    for (const path of ['/license/get', '/license/delete', '/license/extend', '/license/update-status', '/license/update-metadata', '/license/update-email']) {
      const body = path === '/license/update-email' ? { email: null } : { extend_seconds: 60, status: 'paused', metadata: {} };
      const foreign = await env.post(path, { ...body, license_key: plain.key }, intruder.auth);
      const missing = await env.post(path, { ...body, license_key: 'NEVER-EXISTED' }, intruder.auth);
      expect({ status: foreign.status, body: foreign.body }).toEqual({ status: missing.status, body: missing.body });
    }
  });

  it('still lets the owner reach the licenses the intruder could not', async () => {
    const response = await env.post('/license/get', { license_key: bound.key }, victim.auth);
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ username: 'victim-user', hwid: 'victim-device', status: 'active' });
  });
});
