import { keys } from '#data/keys';
import type { Subscription } from '#data/model/subscription';
import { meterDynamo } from '../../local/ddb-meter';
import { createFakeClock } from '../support/clock';
import { startTestServer, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { checkInvariants, scanAll } from '../support/invariants';
import { createLicenseOverHttp, listAllLicenses } from '../support/licenses';
import { createOwner, type Owner } from '../support/owners';
import * as licenses from '#data/license.repo';

// Custom keys live under their owner's team: choosing one tells an owner
// nothing about other owners' keys, and two owners may both use it.
const clock = createFakeClock();
let env: TestServer;
let alice: Owner;
let bob: Owner;
let aliceTier: Subscription;
let bobTier: Subscription;

beforeAll(async () => {
  env = await startTestServer({ clock, config: { cacheTtlSeconds: 5 } });
  [alice, bob] = [await createOwner(env.deps), await createOwner(env.deps)];
  [aliceTier, bobTier] = [await seedSubscription(env.deps, alice), await seedSubscription(env.deps, bob)];
});
afterAll(() => env.close());

const create = (owner: Owner, tier: Subscription, extra: Record<string, unknown>) =>
  env.post('/license/create', { app_id: owner.app_id, subscription_id: tier.subscription_id, duration_unit: 'days', duration_value: 30, ...extra }, owner.auth);
const auth = (owner: Owner, body: Record<string, unknown>) => env.post('/auth', { app_id: owner.app_id, ...body });
const get = async (owner: Owner, licenseKey: string) => env.post('/license/get', { license_key: licenseKey }, owner.auth);

describe('custom license keys', () => {
  it('lets two owners choose the same key, each seeing and using only their own license', async () => {
    const first = await create(alice, aliceTier, { license_key: 'ACME-PRO-0001', tags: ['alice'] });
    const second = await create(bob, bobTier, { license_key: 'ACME-PRO-0001', tags: ['bob'] });

    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body.data).toMatchObject({ key: 'ACME-PRO-0001', app_id: bob.app_id, tags: ['bob'] });
    expect((await get(alice, 'ACME-PRO-0001')).body.data.tags).toEqual(['alice']);
    expect((await get(bob, 'ACME-PRO-0001')).body.data.tags).toEqual(['bob']);

    const extended = await env.post('/license/extend', { license_key: 'ACME-PRO-0001', extend_seconds: 3600 }, bob.auth);
    expect(extended.body.data.initial_duration).toBe(30 * 86400 + 3600);
    expect((await get(alice, 'ACME-PRO-0001')).body.data.initial_duration).toBe(30 * 86400);

    const paused = await env.post('/license/update-status', { license_key: 'ACME-PRO-0001', status: 'paused' }, alice.auth);
    expect(paused.body.data.status).toBe('paused');
    expect((await auth(alice, { license: 'ACME-PRO-0001' })).body.message).toBe('LICENSE_NOT_ACTIVE');
    expect((await auth(bob, { license: 'ACME-PRO-0001' })).body.message).toBe('LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY');

    expect((await env.post('/license/delete', { license_key: 'ACME-PRO-0001' }, alice.auth)).status).toBe(200);
    expect((await get(alice, 'ACME-PRO-0001')).status).toBe(404);
    expect((await get(bob, 'ACME-PRO-0001')).body.data.tags).toEqual(['bob']);
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });

  it('answers LICENSE_KEY_TAKEN only for a key of the same owner, custom or generated', async () => {
    expect((await create(alice, aliceTier, { license_key: 'alice-only-1' })).status).toBe(200);
    const again = await create(alice, aliceTier, { license_key: 'alice-only-1' });
    expect(again.status).toBe(409);
    expect(again.body.error_code).toBe('LICENSE_KEY_TAKEN');

    const generated = await createLicenseOverHttp(env, alice, aliceTier);
    const reused = await create(alice, aliceTier, { license_key: generated.key });
    expect(reused.status).toBe(409);
    expect(reused.body.error_code).toBe('LICENSE_KEY_TAKEN');
  });

  it('answers another owner’s generated key as free, and the key keeps naming each owner’s own license', async () => {
    const generated = await createLicenseOverHttp(env, alice, aliceTier, { tags: ['generated'] });

    const chosen = await create(bob, bobTier, { license_key: generated.key, tags: ['chosen'] });

    expect(chosen.status).toBe(200);
    expect((await get(alice, generated.key)).body.data.tags).toEqual(['generated']);
    expect((await get(bob, generated.key)).body.data.tags).toEqual(['chosen']);
    const bobAuth = await auth(bob, { license: generated.key });
    expect(bobAuth.body.message).toBe('LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY');
    expect((await get(bob, generated.key)).body.data.first_used_at).toBe(bobAuth.body.data.first_used_at);
    expect((await get(alice, generated.key)).body.data.first_used_at).toBeNull();
    expect((await auth(alice, { license: generated.key })).body.message).toBe('LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY');
  });

  it('keeps serving a custom key stored before keys were scoped, and still counts it as the owner’s', async () => {
    const legacy = await seedLicense(env.deps, aliceTier, { key: 'legacy-custom-1', tags: ['legacy'] });
    expect(await licenses.get(env.deps.table, legacy.key, alice.team_id)).toEqual(legacy);

    expect((await auth(alice, { license: 'legacy-custom-1' })).body.message).toBe('LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY');
    expect((await env.post('/license/update-metadata', { license_key: 'legacy-custom-1', metadata: { seat: 1 } }, alice.auth)).status).toBe(200);
    expect((await create(alice, aliceTier, { license_key: 'legacy-custom-1' })).body.error_code).toBe('LICENSE_KEY_TAKEN');
    expect((await create(bob, bobTier, { license_key: 'legacy-custom-1' })).status).toBe(200);
    expect((await get(alice, 'legacy-custom-1')).body.data).toMatchObject({ tags: ['legacy'], metadata: { seat: 1 } });
  });

  it('logs in by username and registers on a custom key', async () => {
    await create(bob, bobTier, { license_key: 'bob-user-key', username: 'carol', password: 'password-1' });
    const registered = await env.post('/register', { app_id: bob.app_id, license: 'bob-user-key', username: 'carol2', password: 'password-2' });
    expect(registered.status).toBe(200);
    const login = await auth(bob, { username: 'carol2', password: 'password-2' });
    expect(login.body.message).toBe('LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY');
    expect(login.body.data.key).toBe('bob-user-key');
  });

  it('applies bulk routes to the owner’s own license under a shared custom key', async () => {
    await create(alice, aliceTier, { license_key: 'bulk-shared-1' });
    await create(bob, bobTier, { license_key: 'bulk-shared-1' });

    const extended = await env.post('/license/extend-bulk', { license_keys: ['bulk-shared-1'], extend_seconds: 60 }, bob.auth);
    const locked = await env.post('/hwid/toggle-lock-bulk', { license_keys: ['bulk-shared-1'], hwid_lock: true }, bob.auth);

    expect(extended.body.data).toEqual({ succeeded: ['bulk-shared-1'], failed: [] });
    expect(locked.body.data).toEqual({ succeeded: ['bulk-shared-1'], failed: [] });
    expect((await get(bob, 'bulk-shared-1')).body.data).toMatchObject({ initial_duration: 30 * 86400 + 60, hwid_lock: true });
    expect((await get(alice, 'bulk-shared-1')).body.data).toMatchObject({ initial_duration: 30 * 86400, hwid_lock: false });
  });

  it('lists custom and generated keys page by page across a page boundary on a custom key', async () => {
    const fresh = await createOwner(env.deps);
    const tier = await seedSubscription(env.deps, fresh);
    const made: string[] = [];
    for (let index = 0; index < 5; index++) {
      clock.advance(1);
      made.push((await createLicenseOverHttp(env, fresh, tier, index % 2 === 0 ? { license_key: `page-custom-${index}` } : {})).key);
    }
    const { licenses, pageSizes } = await listAllLicenses(env, fresh, { app_id: fresh.app_id, per_page: 1, sort_order: 'asc' });
    expect(licenses.map((license: { key: string }) => license.key)).toEqual(made);
    expect(pageSizes).toEqual([1, 1, 1, 1, 1]);
  });

  it('lets exactly one of concurrent creates of one owner take a key, and every owner racing for it get their own', async () => {
    const racers = await Promise.all(Array.from({ length: 3 }, async () => {
      const owner = await createOwner(env.deps);
      return { owner, tier: await seedSubscription(env.deps, owner) };
    }));
    // Bodies differ (tags): identical creates in the same millisecond would be one write resent, answered alike.
    const answers = await Promise.all(
      racers.flatMap(({ owner, tier }) => Array.from({ length: 6 }, (_, index) => create(owner, tier, { license_key: 'RACED-KEY-01', tags: [`try-${index}`] }))),
    );

    for (let racer = 0; racer < racers.length; racer++) {
      const own = answers.slice(racer * 6, racer * 6 + 6).map((answer) => answer.status).sort();
      expect(own).toEqual([200, 409, 409, 409, 409, 409]);
    }
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });

  it('finds a custom key in the first read when the app is cached, and with one more read when it is not', async () => {
    await create(alice, aliceTier, { license_key: 'hot-path-custom' });
    const calls = meterDynamo(env.client);
    clock.advance(60);

    calls.reset();
    const cold = await auth(alice, { license: 'hot-path-custom' });
    const coldCounts = calls.counts();
    calls.reset();
    const warm = await auth(alice, { license: 'hot-path-custom' });
    const warmCounts = calls.counts();

    expect(cold.body.message).toBe('LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY');
    expect(coldCounts).toEqual({ BatchGetItemCommand: 3, TransactWriteItemsCommand: 1 });
    expect(warm.body.message).toBe('LICENSE_VERIFIED_USED_AND_UNLOCKED_KEY');
    expect(warmCounts).toEqual({ BatchGetItemCommand: 1, UpdateItemCommand: 1 });
  });

  it('stores a custom key under its team and a generated one in the shared namespace', async () => {
    const custom = await create(alice, aliceTier, { license_key: 'where-stored-1' });
    const generated = await createLicenseOverHttp(env, alice, aliceTier);
    const items = await scanAll(env.deps.table);
    const pks = new Set(items.map((item) => item.pk));
    expect(custom.status).toBe(200);
    expect(pks).toContain(keys.license('where-stored-1', alice.team_id).pk);
    expect(pks).not.toContain(keys.license('where-stored-1').pk);
    expect(pks).toContain(keys.license(generated.key).pk);
  });
});
