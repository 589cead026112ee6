import { MAX_RESET_INTERVAL_SECONDS } from '#core/domain/fields';
import type { Subscription } from '#data/model/subscription';
import { startTestServer, type TestServer } from '../support/env';
import { seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';

/** An owner's defaults for the self-service reset rules of new licenses, set through /app/settings. */
let env: TestServer;

beforeAll(async () => {
  env = await startTestServer();
});
afterAll(() => env.close());

async function ownerWithSubscription(): Promise<{ owner: Owner; subscription: Subscription }> {
  const owner = await createOwner(env.deps);
  return { owner, subscription: await seedSubscription(env.deps, owner) };
}

const settings = (owner: Owner, body: Record<string, unknown> = {}) => env.post('/app/settings', { app_id: owner.app_id, ...body }, owner.auth);

const create = (owner: Owner, subscription: Subscription, body: Record<string, unknown> = {}) =>
  env.post('/license/create', { app_id: owner.app_id, subscription_id: subscription.subscription_id, duration_unit: 'days', duration_value: 30, ...body }, owner.auth);

const resetRules = (record: { hwid_reset_allowed: boolean; hwid_reset_interval: number }) => [record.hwid_reset_allowed, record.hwid_reset_interval];

describe('/app/settings reset defaults', () => {
  it('answers resets allowed without cooldown until set, and keeps each setting when another is changed', async () => {
    const { owner } = await ownerWithSubscription();

    const initial = await settings(owner);
    const set = await settings(owner, { default_hwid_reset_allowed: false, default_hwid_reset_interval: 7 * 86400 });
    const ttlOnly = await settings(owner, { offline_token_ttl: 3600 });
    const again = await settings(owner, { default_hwid_reset_interval: 7 * 86400 });

    expect(initial.body.data).toEqual({ app_id: owner.app_id, offline_token_ttl: 604800, default_hwid_reset_allowed: true, default_hwid_reset_interval: 0, max_borrow_seconds: 604800, max_license_file_seconds: 2592000, trial: null, portal: { enabled: false, allow_device_release: true, allow_license_files: true } });
    expect(set.body.data).toEqual({ app_id: owner.app_id, offline_token_ttl: 604800, default_hwid_reset_allowed: false, default_hwid_reset_interval: 604800, max_borrow_seconds: 604800, max_license_file_seconds: 2592000, trial: null, portal: { enabled: false, allow_device_release: true, allow_license_files: true } });
    expect(ttlOnly.body.data).toEqual({ app_id: owner.app_id, offline_token_ttl: 3600, default_hwid_reset_allowed: false, default_hwid_reset_interval: 604800, max_borrow_seconds: 604800, max_license_file_seconds: 2592000, trial: null, portal: { enabled: false, allow_device_release: true, allow_license_files: true } });
    expect(again.body.data).toEqual(ttlOnly.body.data);
  });

  it.each([
    ['default_hwid_reset_interval', -1],
    ['default_hwid_reset_interval', MAX_RESET_INTERVAL_SECONDS + 1],
    ['default_hwid_reset_interval', 1.5],
    ['default_hwid_reset_interval', '3600'],
    ['default_hwid_reset_allowed', 'false'],
    ['default_hwid_reset_allowed', null],
    ['max_license_file_seconds', 3599],
    ['max_license_file_seconds', 315_360_001],
    ['max_license_file_seconds', 86400.5],
    ['max_license_file_seconds', '86400'],
  ])('refuses %s = %j with 400 INVALID_INPUT naming the field, changing nothing', async (field, value) => {
    const { owner } = await ownerWithSubscription();

    const answer = await settings(owner, { [field]: value });

    expect(answer.status).toBe(400);
    expect(answer.body.error_code).toBe('INVALID_INPUT');
    expect(answer.body.error).toContain(field);
    expect((await settings(owner)).body.data).toMatchObject({ default_hwid_reset_allowed: true, default_hwid_reset_interval: 0 });
  });

  it('accepts the bounds of /hwid/update-reset-interval', async () => {
    const { owner } = await ownerWithSubscription();
    for (const interval of [0, MAX_RESET_INTERVAL_SECONDS]) {
      expect((await settings(owner, { default_hwid_reset_interval: interval })).body.data.default_hwid_reset_interval).toBe(interval);
    }
  });

  it('accepts the bounds of max_license_file_seconds and keeps the other settings', async () => {
    const { owner } = await ownerWithSubscription();
    for (const seconds of [3600, 315_360_000]) {
      expect((await settings(owner, { max_license_file_seconds: seconds })).body.data).toMatchObject({ max_license_file_seconds: seconds, max_borrow_seconds: 604800 });
    }
  });

  it('keeps other owners out', async () => {
    const { owner } = await ownerWithSubscription();
    const other = await createOwner(env.deps);

    const answer = await env.post('/app/settings', { app_id: owner.app_id, default_hwid_reset_allowed: false }, other.auth);

    expect([answer.status, answer.body.error_code]).toEqual([403, 'ACCESS_DENIED']);
    expect((await settings(owner)).body.data.default_hwid_reset_allowed).toBe(true);
  });
});

describe('new licenses and the reset defaults', () => {
  it('/license/create gives the application defaults unless the request sets its own', async () => {
    const { owner, subscription } = await ownerWithSubscription();
    const before = await create(owner, subscription);
    await settings(owner, { default_hwid_reset_allowed: false, default_hwid_reset_interval: 86400 });

    const defaulted = await create(owner, subscription);
    const ownRules = await create(owner, subscription, { hwid_reset_allowed: true, hwid_reset_interval: 3600 });
    const oneOwnRule = await create(owner, subscription, { hwid_reset_allowed: true });

    expect(resetRules(before.body.data)).toEqual([true, 0]);
    expect(resetRules(defaulted.body.data)).toEqual([false, 86400]);
    expect(resetRules(ownRules.body.data)).toEqual([true, 3600]);
    expect(resetRules(oneOwnRule.body.data)).toEqual([true, 86400]);
    const stored = await env.post('/license/get', { license_key: before.body.data.key }, owner.auth);
    expect(resetRules(stored.body.data)).toEqual([true, 0]);
  });

  it('/license/create-bulk gives every license the application defaults unless the request sets its own', async () => {
    const { owner, subscription } = await ownerWithSubscription();
    await settings(owner, { default_hwid_reset_interval: 172800 });
    const bulk = (body: Record<string, unknown> = {}) =>
      env.post(
        '/license/create-bulk',
        { key_amount: 3, app_id: owner.app_id, subscription_id: subscription.subscription_id, duration_unit: 'days', duration_value: 1, ...body },
        owner.auth,
      );

    const defaulted = await bulk();
    const ownRules = await bulk({ hwid_reset_allowed: false, hwid_reset_interval: 0 });

    expect(defaulted.body.data.map(resetRules)).toEqual([[true, 172800], [true, 172800], [true, 172800]]);
    expect(ownRules.body.data.map(resetRules)).toEqual([[false, 0], [false, 0], [false, 0]]);
  });

  it('refuses a reset interval out of bounds on create with 400 INVALID_INPUT naming the field', async () => {
    const { owner, subscription } = await ownerWithSubscription();

    const answer = await create(owner, subscription, { hwid_reset_interval: MAX_RESET_INTERVAL_SECONDS + 1 });

    expect([answer.status, answer.body.error_code]).toEqual([400, 'INVALID_INPUT']);
    expect(answer.body.error).toContain('hwid_reset_interval');
  });

  it('a license made with resets off by default answers HWID_RESET_NOT_ALLOWED on /reset-hwid', async () => {
    const { owner, subscription } = await ownerWithSubscription();
    await settings(owner, { default_hwid_reset_allowed: false });
    const license = (await create(owner, subscription, { hwid_lock: true })).body.data;
    await env.post('/auth', { app_id: owner.app_id, license: license.key, hwid: 'defaults-device-1' });

    const reset = await env.post('/reset-hwid', { app_id: owner.app_id, license: license.key });

    expect([reset.status, reset.body.message]).toEqual([403, 'HWID_RESET_NOT_ALLOWED']);
  });
});
