import { verifyPassword } from '#core/domain/passwords';
import { getItem } from '#data/db';
import { keys } from '#data/keys';
import { createApp } from '../../functions/admin/owners';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createLicenseOverHttp } from '../support/licenses';
import { madeBeforeAll, withOwner } from '../support/owners';
import * as licenses from '#data/license.repo';
import * as usernames from '#data/username.repo';

const { env, owner } = withOwner();
const subscription = madeBeforeAll(() => seedSubscription(env.deps, owner));

const missingKeyAnswers404 = async (path: string, body: Record<string, unknown>) => {
  const response = await env.post(path, { license_key: 'NO-SUCH-KEY', ...body }, owner.auth);
  expect(response.status).toBe(404);
  expect(response.body.error_code).toBe('LICENSE_NOT_FOUND');
};

describe('POST /license/update-status', () => {
  it('pauses and activates a license and answers its record', async () => {
    const license = await seedLicense(env.deps, subscription);

    const paused = await env.post('/license/update-status', { license_key: license.key, status: 'paused' }, owner.auth);
    expect(paused.status).toBe(200);
    expect(paused.body.data).toMatchObject({ key: license.key, status: 'paused', subscription_name: 'Pro' });
    expect((await licenses.get(env.deps.table, license.key, license.team_id))?.status).toBe('paused');

    const active = await env.post('/license/update-status', { license_key: license.key, status: 'active' }, owner.auth);
    expect(active.body.data.status).toBe('active');
  });

  it('answers 400 naming status for an unknown status and 404 for a missing key', async () => {
    const license = await seedLicense(env.deps, subscription);
    const bad = await env.post('/license/update-status', { license_key: license.key, status: 'banned' }, owner.auth);
    expect(bad.status).toBe(400);
    expect(bad.body.error.startsWith('status: ')).toBe(true);
    await missingKeyAnswers404('/license/update-status', { status: 'paused' });
  });
});

describe('POST /license/update-status-bulk', () => {
  it('sets the status of each key it finds and answers per key', async () => {
    const [first, second] = await Promise.all([seedLicense(env.deps, subscription), seedLicense(env.deps, subscription)]);

    const response = await env.post('/license/update-status-bulk', { license_keys: [first.key, second.key, 'MISSING-3', second.key], status: 'paused' }, owner.auth);

    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ succeeded: [first.key, second.key], failed: [{ license_key: 'MISSING-3', error_code: 'LICENSE_NOT_FOUND' }] });
    expect((await licenses.get(env.deps.table, first.key, first.team_id))?.status).toBe('paused');
    expect((await licenses.get(env.deps.table, second.key, second.team_id))?.status).toBe('paused');
  });

  it('answers 400 naming the field for an empty list or a missing status', async () => {
    const empty = await env.post('/license/update-status-bulk', { license_keys: [], status: 'paused' }, owner.auth);
    expect(empty.body.error.startsWith('license_keys: ')).toBe(true);
    const noStatus = await env.post('/license/update-status-bulk', { license_keys: ['K-1'] }, owner.auth);
    expect(noStatus.status).toBe(400);
    expect(noStatus.body.error.startsWith('status: ')).toBe(true);
  });
});

describe('POST /license/update-subscription', () => {
  it('moves a license to another subscription of its application', async () => {
    const license = await seedLicense(env.deps, subscription);
    const premium = await seedSubscription(env.deps, owner, { name: 'Premium', level: 9 });

    const response = await env.post('/license/update-subscription', { license_key: license.key, subscription_id: premium.subscription_id }, owner.auth);

    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ subscription_id: premium.subscription_id, subscription_name: 'Premium', subscription_level: 9 });
    expect((await licenses.get(env.deps.table, license.key, license.team_id))?.subscription_id).toBe(premium.subscription_id);
  });

  it('refuses a subscription of another application with 400 naming subscription_id', async () => {
    const license = await seedLicense(env.deps, subscription);
    const { app_id } = await createApp(env.deps, { teamId: owner.team_id });
    const elsewhere = await seedSubscription(env.deps, { ...owner, app_id });

    const response = await env.post('/license/update-subscription', { license_key: license.key, subscription_id: elsewhere.subscription_id }, owner.auth);

    expect(response.status).toBe(400);
    expect(response.body.error.startsWith('subscription_id: ')).toBe(true);
    expect((await licenses.get(env.deps.table, license.key, license.team_id))?.subscription_id).toBe(subscription.subscription_id);
  });

  it('answers 404 SUBSCRIPTION_NOT_FOUND, 404 LICENSE_NOT_FOUND and 400 for a malformed subscription_id', async () => {
    const license = await seedLicense(env.deps, subscription);
    const noSubscription = await env.post('/license/update-subscription', { license_key: license.key, subscription_id: '5b0c3a52-8f3e-4c8e-9b7e-000000000000' }, owner.auth);
    expect(noSubscription.status).toBe(404);
    expect(noSubscription.body.error_code).toBe('SUBSCRIPTION_NOT_FOUND');
    await missingKeyAnswers404('/license/update-subscription', { subscription_id: subscription.subscription_id });
    const bad = await env.post('/license/update-subscription', { license_key: license.key, subscription_id: 'gold' }, owner.auth);
    expect(bad.status).toBe(400);
  });
});

describe('POST /license/update-user-credentials', () => {
  it('gives a license without credentials a username and password', async () => {
    const license = await seedLicense(env.deps, subscription);

    const response = await env.post('/license/update-user-credentials', { license_key: license.key, username: 'Mallory', password: 'password-1' }, owner.auth);

    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ key: license.key, username: 'Mallory' });
    const index = await usernames.get(env.deps.table, owner.app_id, 'mallory');
    expect(index?.license_key).toBe(license.key);
    expect(await verifyPassword('password-1', index!.password_hash)).toBe(true);
  });

  it('renames without a password, keeping the old password and freeing the old name', async () => {
    const license = await createLicenseOverHttp(env, owner, subscription, { username: 'oscar', password: 'password-1' });

    const response = await env.post('/license/update-user-credentials', { license_key: license.key, username: 'oscar2' }, owner.auth);

    expect(response.status).toBe(200);
    expect(response.body.data.username).toBe('oscar2');
    const index = await usernames.get(env.deps.table, owner.app_id, 'oscar2');
    expect(await verifyPassword('password-1', index!.password_hash)).toBe(true);
    expect(await getItem(env.deps.table, keys.username(owner.app_id, 'oscar'))).toBeUndefined();
  });

  it('answers 400 naming password when a license without credentials gets no password', async () => {
    const license = await seedLicense(env.deps, subscription);
    const response = await env.post('/license/update-user-credentials', { license_key: license.key, username: 'peggy' }, owner.auth);
    expect(response.status).toBe(400);
    expect(response.body.error.startsWith('password: ')).toBe(true);
    expect(await usernames.get(env.deps.table, owner.app_id, 'peggy')).toBeUndefined();
  });

  it('answers 409 USERNAME_TAKEN for a name another license of the app holds, in any case', async () => {
    await createLicenseOverHttp(env, owner, subscription, { username: 'trent', password: 'password-1' });
    const license = await seedLicense(env.deps, subscription);

    const response = await env.post('/license/update-user-credentials', { license_key: license.key, username: 'TRENT', password: 'password-2' }, owner.auth);

    expect(response.status).toBe(409);
    expect(response.body.error_code).toBe('USERNAME_TAKEN');
    expect((await licenses.get(env.deps.table, license.key, license.team_id))?.username).toBeNull();
  });

  it('gives a username to exactly one of two licenses racing for it', async () => {
    const [first, second] = await Promise.all([seedLicense(env.deps, subscription), seedLicense(env.deps, subscription)]);

    const responses = await Promise.all(
      [first, second].map((license) => env.post('/license/update-user-credentials', { license_key: license.key, username: 'victor', password: 'password-1' }, owner.auth)),
    );

    expect(responses.map((response) => response.status).sort()).toEqual([200, 409]);
    const winner = (await usernames.get(env.deps.table, owner.app_id, 'victor'))!.license_key;
    expect([first.key, second.key]).toContain(winner);
  });

  it('answers 400 for a short username or password and 404 for a missing key', async () => {
    const license = await seedLicense(env.deps, subscription);
    const shortName = await env.post('/license/update-user-credentials', { license_key: license.key, username: 'x' }, owner.auth);
    expect(shortName.body.error.startsWith('username: ')).toBe(true);
    const shortPassword = await env.post('/license/update-user-credentials', { license_key: license.key, username: 'walter', password: 'short' }, owner.auth);
    expect(shortPassword.body.error.startsWith('password: ')).toBe(true);
    await missingKeyAnswers404('/license/update-user-credentials', { username: 'walter', password: 'password-1' });
  });
});

describe('POST /license/update-metadata', () => {
  it('replaces the metadata object', async () => {
    const license = await seedLicense(env.deps, subscription, { metadata: { old: true, keep: 'no' } });

    const response = await env.post('/license/update-metadata', { license_key: license.key, metadata: { customer_id: 'cus_1', seats: 5 } }, owner.auth);

    expect(response.status).toBe(200);
    expect(response.body.data.metadata).toEqual({ customer_id: 'cus_1', seats: 5 });
    expect((await licenses.get(env.deps.table, license.key, license.team_id))?.metadata).toEqual({ customer_id: 'cus_1', seats: 5 });
  });

  it('accepts 4096 bytes of JSON and refuses 4097, counting UTF-8 bytes', async () => {
    const license = await seedLicense(env.deps, subscription);
    const padding = 4096 - JSON.stringify({ s: '' }).length;
    const fits = await env.post('/license/update-metadata', { license_key: license.key, metadata: { s: 'x'.repeat(padding) } }, owner.auth);
    expect(fits.status).toBe(200);
    const tooBig = await env.post('/license/update-metadata', { license_key: license.key, metadata: { s: `${'x'.repeat(padding - 1)}é` } }, owner.auth);
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.error.startsWith('metadata: ')).toBe(true);
  });

  it('answers 400 for metadata that is not an object and 404 for a missing key', async () => {
    const license = await seedLicense(env.deps, subscription);
    for (const metadata of [[1], 'text', null]) {
      const response = await env.post('/license/update-metadata', { license_key: license.key, metadata }, owner.auth);
      expect(response.status).toBe(400);
      expect(response.body.error.startsWith('metadata: ')).toBe(true);
    }
    await missingKeyAnswers404('/license/update-metadata', { metadata: {} });
  });
});
