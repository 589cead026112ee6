import { getItem } from '#data/db';
import { keys } from '#data/keys';
import type { License } from '#data/model/license';
import type { Subscription } from '#data/model/subscription';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';
import { startTestServer, type TestServer } from '../support/env';
import * as blacklist from '#data/blacklist.repo';
import * as subscriptions from '#data/subscription.repo';

/**
 * A second owner's API key on every HWID, subscription and blacklist route, aimed
 * at the first owner's app, subscription and license: no access, and every stored
 * item of the first owner reads back unchanged.
 */
let env: TestServer;
let victim: Owner;
let intruder: Owner;
let subscription: Subscription;
let license: License;
const bannedIp = '192.0.2.50';

beforeAll(async () => {
  env = await startTestServer();
  victim = await createOwner(env.deps);
  intruder = await createOwner(env.deps);
  subscription = await seedSubscription(env.deps, victim, { single_key_per_hwid: true });
  license = await seedLicense(env.deps, subscription, { hwid_lock: true, hwid_reset_allowed: true, hwid_reset_interval: 60 });
  const bound = await env.post('/hwid/edit', { license_key: license.key, hwid: 'victim-device' }, victim.auth);
  const banned = await env.post('/blacklist/add', { app_id: victim.app_id, type: 'ip', value: bannedIp, reason: 'r' }, victim.auth);
  if (bound.status !== 200 || banned.status !== 200) throw new Error('arranging the victim’s items failed');
});
afterAll(() => env.close());

/** Every item the routes could touch, raw as stored, including index items and listings. */
async function victimState() {
  return {
    license: await getItem(env.deps.table, keys.license(license.key)),
    subscription: await getItem(env.deps.table, keys.subscription(subscription.subscription_id)),
    hwidIndex: await getItem(env.deps.table, keys.hwid(victim.app_id, 'victim-device')),
    claimedHwid: await getItem(env.deps.table, keys.hwid(victim.app_id, 'intruder-device')),
    subscriptions: await subscriptions.listByApp(env.deps.table, victim.app_id),
    blacklist: await blacklist.list(env.deps.table, victim.app_id, undefined, 100),
  };
}

const licenseNotFound = { error: 'License not found', error_code: 'LICENSE_NOT_FOUND' };
const accessDenied = { error: 'Access denied', error_code: 'ACCESS_DENIED' };

type Case = [path: string, body: () => Record<string, unknown>, status: number, expected: () => unknown];

const cases: Case[] = [
  ['/hwid/edit', () => ({ license_key: license.key, hwid: null }), 404, () => licenseNotFound],
  ['/hwid/edit', () => ({ license_key: license.key, hwid: 'intruder-device' }), 404, () => licenseNotFound],
  ['/hwid/toggle-lock', () => ({ license_key: license.key }), 404, () => licenseNotFound],
  ['/hwid/toggle-lock', () => ({ license_key: license.key, hwid_lock: false }), 404, () => licenseNotFound],
  [
    '/hwid/toggle-lock-bulk',
    () => ({ license_keys: [license.key], hwid_lock: false }),
    200,
    () => ({ success: true, data: { succeeded: [], failed: [{ license_key: license.key, error_code: 'LICENSE_NOT_FOUND' }] } }),
  ],
  ['/hwid/toggle-reset-allowed', () => ({ license_key: license.key }), 404, () => licenseNotFound],
  ['/hwid/toggle-reset-allowed', () => ({ license_key: license.key, hwid_reset_allowed: false }), 404, () => licenseNotFound],
  ['/hwid/update-reset-interval', () => ({ license_key: license.key, hwid_reset_interval: 0 }), 404, () => licenseNotFound],
  ['/subscription/create', () => ({ app_id: victim.app_id, name: 'Intruder', level: 1 }), 403, () => accessDenied],
  ['/subscription/edit', () => ({ subscription_id: subscription.subscription_id, status: 'inactive' }), 403, () => accessDenied],
  ['/subscription/delete', () => ({ subscription_id: subscription.subscription_id }), 403, () => accessDenied],
  ['/subscription/get-bulk', () => ({ app_id: victim.app_id }), 403, () => accessDenied],
  ['/blacklist/add', () => ({ app_id: victim.app_id, type: 'ip', value: bannedIp, reason: 'overwritten' }), 403, () => accessDenied],
  ['/blacklist/delete', () => ({ app_id: victim.app_id, type: 'ip', value: bannedIp }), 403, () => accessDenied],
  ['/blacklist/get-bulk', () => ({ app_id: victim.app_id }), 403, () => accessDenied],
];

describe('another owner’s API key', () => {
  it.each(cases)('on %s gets no access and changes nothing (%#)', async (path, body, status, expected) => {
    const before = await victimState();

    const response = await env.post(path, body(), intruder.auth);

    expect(response.status).toBe(status);
    expect(response.body).toEqual(expected());
    expect(await victimState()).toEqual(before);
  });

  it('cannot tell the first owner’s license key from a key that does not exist', async () => {
    const taken = await env.post('/hwid/toggle-lock', { license_key: license.key }, intruder.auth);
    const missing = await env.post('/hwid/toggle-lock', { license_key: 'NOPE0-NOPE0-NOPE0-NOPE0-NOPE0' }, intruder.auth);

    expect(taken.status).toBe(missing.status);
    expect(taken.body).toEqual(missing.body);
  });

  it('still works on its own app, so the refusals above are about ownership', async () => {
    const response = await env.post('/subscription/get-bulk', { app_id: intruder.app_id }, intruder.auth);

    expect(response.status).toBe(200);
  });
});

describe('a request without an API key', () => {
  it.each(cases)('on %s answers 401 MISSING_AUTH and changes nothing (%#)', async (path, body) => {
    const before = await victimState();

    const response = await env.post(path, body());

    expect(response.status).toBe(401);
    expect(response.body.error_code).toBe('MISSING_AUTH');
    expect(await victimState()).toEqual(before);
  });
});
