import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#data/keys';
import type { License } from '#data/model/license';
import { blacklist } from '../support/client';
import { createFakeClock } from '../support/clock';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { checkInvariants, scanAll } from '../support/invariants';
import { createOwner, madeBeforeAll, withOwner, type Owner } from '../support/owners';
import * as hwids from '#data/hwid.repo';
import * as licenses from '#data/license.repo';

/** docs/client-api.md#post-reset-hwid, and licenses with several seats (docs/management-api.md#devices-seats-and-self-service-reset). */
const clock = createFakeClock(new Date('2026-01-01T00:00:00.000Z'));
const { env, owner } = withOwner({ clock, config: { cacheTtlSeconds: 0 } });
const plain = madeBeforeAll(() => seedSubscription(env.deps, owner, { name: 'Pro', level: 2 }));
const singleKey = madeBeforeAll(() => seedSubscription(env.deps, owner, { single_key_per_hwid: true }));

const auth = (body: Record<string, unknown>) => env.post('/auth', { app_id: owner.app_id, ...body });
const reset = (body: Record<string, unknown>) => env.post('/reset-hwid', { app_id: owner.app_id, ...body });
const manage = (path: string, body: Record<string, unknown>, as: Owner = owner) => env.post(path, body, as.auth);
const stored = async (key: string) => (await licenses.get(env.deps.table, key, owner.team_id))!;
const locked = (overrides: Partial<License> = {}, subscription = plain) => seedLicense(env.deps, subscription, { hwid_lock: true, ...overrides });
const violations = async () => checkInvariants(await scanAll(env.deps.table));

describe('POST /reset-hwid', () => {
  it('releases the device when resets are allowed, and the next /auth from a new HWID binds it', async () => {
    const { key } = await locked({ hwid_reset_interval: 3600 });
    await auth({ license: key, hwid: 'old-pc' });

    const response = await reset({ license: key });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ success: true, message: 'HWID_RESET' });
    expect(response.body.data).toMatchObject({ key, last_hwid_reset_at: clock.now().toISOString(), hwid_reset_cooldown: 3600, hwid_reset_allowed: false });
    expect(Object.keys(response.body.data)).toEqual(Object.keys((await auth({ license: key, hwid: 'new-pc' })).body.data));
    expect(await stored(key)).toMatchObject({ hwid: 'new-pc', hwids: ['new-pc'] });
    expect((await auth({ license: key, hwid: 'old-pc' })).body.message).toBe('HWID_MISMATCH');
  });

  it('logs in by username and password as /auth does', async () => {
    const { key } = await locked();
    await env.post('/register', { app_id: owner.app_id, license: key, username: 'reset-user', password: 'password-1' });
    await auth({ license: key, hwid: 'pc-1' });

    expect((await reset({ username: 'reset-user', password: 'wrong-password' })).body.message).toBe('INVALID_USERNAME_OR_PASSWORD');
    const response = await reset({ username: 'reset-user', password: 'password-1' });

    expect(response.body.message).toBe('HWID_RESET');
    expect((await stored(key)).hwid).toBeNull();
  });

  it('answers HWID_RESET_NOT_ALLOWED when the owner disallows resets, before looking at the devices', async () => {
    const { key } = await locked({ hwid_reset_allowed: false });

    const response = await reset({ license: key });

    expect(response.status).toBe(403);
    expect(response.body).toEqual({ success: false, message: 'HWID_RESET_NOT_ALLOWED' });
  });

  it('answers HWID_NOT_BOUND when nothing is bound, or the named HWID is not', async () => {
    const { key } = await locked();
    expect((await reset({ license: key })).body).toEqual({ success: false, message: 'HWID_NOT_BOUND' });
    await auth({ license: key, hwid: 'pc-1' });
    expect((await reset({ license: key, hwid: 'pc-2' })).body).toEqual({ success: false, message: 'HWID_NOT_BOUND' });
    expect((await stored(key)).hwid).toBe('pc-1');
  });

  it('answers HWID_RESET_COOLDOWN with when the last reset was and when the next is allowed', async () => {
    const { key } = await locked({ hwid_reset_interval: 86400 });
    await auth({ license: key, hwid: 'pc-1' });
    const first = clock.now().toISOString();
    await reset({ license: key });
    await auth({ license: key, hwid: 'pc-2' });
    clock.advance(600);

    const response = await reset({ license: key });

    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      success: false,
      message: 'HWID_RESET_COOLDOWN',
      data: { last_hwid_reset_at: first, hwid_reset_cooldown: 86400 - 600, next_reset_at: new Date(Date.parse(first) + 86400_000).toISOString() },
    });
    const data = (await auth({ license: key, hwid: 'pc-2' })).body.data;
    expect(data).toMatchObject({ hwid_reset_cooldown: 86400 - 600, hwid_reset_allowed: false });
    clock.advance(86400 - 600);
    expect((await auth({ license: key, hwid: 'pc-2' })).body.data).toMatchObject({ hwid_reset_cooldown: 0, hwid_reset_allowed: true });
    expect((await reset({ license: key })).body.message).toBe('HWID_RESET');
  });

  it('answers /auth’s 403s first, in their order', async () => {
    const { key } = await locked();
    await auth({ license: key, hwid: 'pc-1' });
    await blacklist(env, owner.app_id, 'hwid', 'banned-pc');
    expect((await reset({ license: key, hwid: 'banned-pc' })).body.message).toBe('HWID_BLACKLISTED');
    expect((await reset({ license: 'NO-SUCH-KEY' })).body.message).toBe('LICENSE_NOT_FOUND');
    expect((await reset({ app_id: '00000000-0000-4000-8000-000000000000', license: key })).body.message).toBe('INVALID_APP_ID');

    await manage('/license/update-status', { license_key: key, status: 'paused' });
    expect((await reset({ license: key })).body.message).toBe('LICENSE_NOT_ACTIVE');
    await manage('/license/update-status', { license_key: key, status: 'active' });

    const expiring = await locked({ initial_duration: 60 });
    await auth({ license: expiring.key, hwid: 'pc-1' });
    clock.advance(61);
    expect((await reset({ license: expiring.key })).body.message).toBe('LICENSE_EXPIRED');

    await env.post('/subscription/edit', { subscription_id: plain.subscription_id, status: 'inactive' }, owner.auth);
    expect((await reset({ license: key })).body.message).toBe('SUBSCRIPTION_NOT_ACTIVE');
    await env.post('/subscription/edit', { subscription_id: plain.subscription_id, status: 'active' }, owner.auth);
    expect((await reset({ license: key })).body.message).toBe('HWID_RESET');
  });

  it('answers the 400s of /auth', async () => {
    expect((await env.post('/reset-hwid', {})).body).toEqual({ success: false, message: 'App ID is required' });
    expect((await env.post('/reset-hwid', { app_id: owner.app_id })).body).toEqual({
      success: false,
      message: 'No valid authentication method provided (missing license key or username/password)',
    });
  });

  it('releases only the named device of a license with several seats, with its HWID index item', async () => {
    const { key } = await locked({ max_devices: 3 }, singleKey);
    for (const hwid of ['pc-a', 'pc-b', 'pc-c']) await auth({ license: key, hwid });

    const response = await reset({ license: key, hwid: 'pc-b' });

    expect(response.body.data).toMatchObject({ hwids: ['pc-a', 'pc-c'], max_devices: 3 });
    expect(await hwids.get(env.deps.table, owner.app_id, 'pc-b')).toBeUndefined();
    expect(await hwids.get(env.deps.table, owner.app_id, 'pc-a')).toMatchObject({ license_key: key });
    expect(await violations()).toEqual([]);
  });
});

describe('several seats', () => {
  it('binds new HWIDs while seats are free, then answers HWID_MISMATCH', async () => {
    const { key } = await locked({ max_devices: 2 });

    const first = await auth({ license: key, hwid: 'pc-1' });
    const second = await auth({ license: key, hwid: 'pc-2' });
    const third = await auth({ license: key, hwid: 'pc-3' });

    expect(first.body.message).toBe('LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY');
    expect(second.body.message).toBe('LICENSE_VERIFIED_USED_AND_LOCKED_KEY');
    expect(second.body.data).toMatchObject({ hwids: ['pc-1', 'pc-2'], max_devices: 2 });
    expect(Object.keys(second.body.data).slice(-2)).toEqual(['hwids', 'max_devices']);
    expect(third.body.message).toBe('HWID_MISMATCH');
    expect((await auth({ license: key, hwid: 'pc-2' })).body.message).toBe('LICENSE_VERIFIED_USED_AND_LOCKED_KEY');
    expect(await stored(key)).toMatchObject({ hwid: 'pc-1', hwids: ['pc-1', 'pc-2'] });
  });

  it('keeps single_key_per_hwid for every bound HWID: one bound to a license is refused on another', async () => {
    const [one, other] = [await locked({ max_devices: 3 }, singleKey), await locked({ max_devices: 3 }, singleKey)];
    await auth({ license: one.key, hwid: 'shared-a' });
    await auth({ license: one.key, hwid: 'shared-b' });

    expect((await auth({ license: other.key, hwid: 'shared-b' })).body.message).toBe('DEVICE_ALREADY_REGISTERED_WITH_OTHER_LICENSE');
    expect((await auth({ license: other.key, hwid: 'own-c' })).body.message).toBe('LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY');
    expect(await violations()).toEqual([]);
  });

  it('shows hwids and max_devices only for a license with several seats; a one-seat record is as before', async () => {
    const one = await manage('/license/create', { app_id: owner.app_id, subscription_id: plain.subscription_id, duration_unit: 'days', duration_value: 1 });
    const three = await manage('/license/create', {
      app_id: owner.app_id,
      subscription_id: plain.subscription_id,
      duration_unit: 'days',
      duration_value: 1,
      max_devices: 3,
    });
    const bulk = await manage('/license/create-bulk', {
      key_amount: 2,
      app_id: owner.app_id,
      subscription_id: plain.subscription_id,
      duration_unit: 'days',
      duration_value: 1,
      hwid_lock: true,
      tags: [],
      max_devices: 5,
    });

    expect(Object.keys(one.body.data)).not.toContain('max_devices');
    // The entitlement fields come last (docs/management-api.md, Licenses); the fields before them keep their order.
    const entitlements = ['features', 'effective_features', 'usage_limits', 'usage'];
    expect(Object.keys(one.body.data).slice(-5)).toEqual(['metadata', ...entitlements]);
    expect(Object.keys(three.body.data).slice(-7)).toEqual(['metadata', 'hwids', 'max_devices', ...entitlements]);
    expect(three.body.data).toMatchObject({ hwid: null, hwids: [], max_devices: 3 });
    expect(bulk.body.data.map((record: { max_devices: number }) => record.max_devices)).toEqual([5, 5]);
    expect((await manage('/license/create', { app_id: owner.app_id, subscription_id: plain.subscription_id, duration_unit: 'days', duration_value: 1, max_devices: 101 })).body).toEqual({
      error: 'max_devices: Too big: expected number to be <=100',
      error_code: 'INVALID_INPUT',
    });
  });

  it('reads an item written before seats existed as one seat holding its hwid', async () => {
    const { key } = await locked();
    await auth({ license: key, hwid: 'legacy-pc' });
    await env.deps.table.doc.send(
      new UpdateCommand({ TableName: env.deps.table.name, Key: keys.license(key), UpdateExpression: 'REMOVE hwids, max_devices' }),
    );

    expect(await stored(key)).toMatchObject({ hwid: 'legacy-pc', hwids: ['legacy-pc'], max_devices: 1 });
    expect((await auth({ license: key, hwid: 'legacy-pc' })).body.message).toBe('LICENSE_VERIFIED_USED_AND_LOCKED_KEY');
    expect((await manage('/hwid/set-max-devices', { license_key: key, max_devices: 2 })).body.data).toMatchObject({ hwids: ['legacy-pc'], max_devices: 2 });
    expect((await auth({ license: key, hwid: 'second-pc' })).body.message).toBe('LICENSE_VERIFIED_USED_AND_LOCKED_KEY');
    expect((await reset({ license: key })).body.message).toBe('HWID_RESET');
    expect(await stored(key)).toMatchObject({ hwid: null, hwids: [] });
  });
});

describe('/hwid/set-max-devices, /hwid/remove and /hwid/edit with several seats', () => {
  it('refuses fewer seats than bound devices with 400 naming max_devices; /hwid/remove frees a seat the next new HWID takes', async () => {
    const { key } = await locked({ max_devices: 2 }, singleKey);
    await auth({ license: key, hwid: 'pc-1' });
    await auth({ license: key, hwid: 'pc-2' });

    const lowered = await manage('/hwid/set-max-devices', { license_key: key, max_devices: 1 });
    expect(lowered.status).toBe(400);
    expect(lowered.body.error_code).toBe('INVALID_INPUT');
    expect(lowered.body.error).toMatch(/^max_devices: /);
    expect((await auth({ license: key, hwid: 'pc-3' })).body.message).toBe('HWID_MISMATCH');

    const removed = await manage('/hwid/remove', { license_key: key, hwid: 'pc-1' });
    expect(removed.status).toBe(200);
    expect(removed.body.data).toMatchObject({ hwid: 'pc-2', hwids: ['pc-2'] });
    expect(await hwids.get(env.deps.table, owner.app_id, 'pc-1')).toBeUndefined();
    expect((await auth({ license: key, hwid: 'pc-3' })).body.message).toBe('LICENSE_VERIFIED_USED_AND_LOCKED_KEY');
    expect(await stored(key)).toMatchObject({ hwid: 'pc-2', hwids: ['pc-2', 'pc-3'] });
    expect((await manage('/hwid/remove', { license_key: key, hwid: 'pc-1' })).body).toEqual({ error: 'This HWID is not bound to the license', error_code: 'HWID_NOT_FOUND' });
    expect((await manage('/hwid/set-max-devices', { license_key: key, max_devices: 2 })).status).toBe(200);
    expect(await violations()).toEqual([]);
  });

  it('/hwid/edit with a string sets exactly that HWID, with null clears them all', async () => {
    const { key } = await locked({ max_devices: 3 }, singleKey);
    for (const hwid of ['e-1', 'e-2', 'e-3']) await auth({ license: key, hwid });

    expect((await manage('/hwid/edit', { license_key: key, hwid: 'e-9' })).body.data).toMatchObject({ hwid: 'e-9', hwids: ['e-9'] });
    expect(await hwids.get(env.deps.table, owner.app_id, 'e-2')).toBeUndefined();
    expect(await violations()).toEqual([]);
    expect((await manage('/hwid/edit', { license_key: key, hwid: null })).body.data).toMatchObject({ hwid: null, hwids: [] });
    expect(await hwids.get(env.deps.table, owner.app_id, 'e-9')).toBeUndefined();
  });

  it('answers LICENSE_NOT_FOUND to another owner’s API key on /hwid/set-max-devices and /hwid/remove', async () => {
    const { key } = await locked({ max_devices: 2 });
    await auth({ license: key, hwid: 'mine' });
    const stranger = await createOwner(env.deps);

    for (const [path, body] of [
      ['/hwid/set-max-devices', { license_key: key, max_devices: 5 }],
      ['/hwid/remove', { license_key: key, hwid: 'mine' }],
    ] as const) {
      const response = await manage(path, body, stranger);
      expect(response.status).toBe(404);
      expect(response.body.error_code).toBe('LICENSE_NOT_FOUND');
    }
    expect(await stored(key)).toMatchObject({ max_devices: 2, hwids: ['mine'] });
  });
});

describe('/license/update-subscription keeps the HWID index with the new subscription', () => {
  it('claims every bound HWID moving onto single_key_per_hwid, releases them moving off it', async () => {
    const { key } = await locked({ max_devices: 2 });
    await auth({ license: key, hwid: 'move-1' });
    await auth({ license: key, hwid: 'move-2' });

    expect((await manage('/license/update-subscription', { license_key: key, subscription_id: singleKey.subscription_id })).status).toBe(200);
    expect(await hwids.get(env.deps.table, owner.app_id, 'move-2')).toMatchObject({ license_key: key });
    expect(await violations()).toEqual([]);

    expect((await manage('/license/update-subscription', { license_key: key, subscription_id: plain.subscription_id })).status).toBe(200);
    expect(await hwids.get(env.deps.table, owner.app_id, 'move-1')).toBeUndefined();
    expect(await hwids.get(env.deps.table, owner.app_id, 'move-2')).toBeUndefined();
    expect(await violations()).toEqual([]);
  });

  it('refuses with HWID_IN_USE a move onto single_key_per_hwid when a bound HWID belongs to another license there', async () => {
    const holder = await locked({}, singleKey);
    await auth({ license: holder.key, hwid: 'taken-pc' });
    const mover = await locked();
    await auth({ license: mover.key, hwid: 'taken-pc' });

    const response = await manage('/license/update-subscription', { license_key: mover.key, subscription_id: singleKey.subscription_id });

    expect(response.status).toBe(409);
    expect(response.body.error_code).toBe('HWID_IN_USE');
    expect((await stored(mover.key)).subscription_id).toBe(plain.subscription_id);
    expect(await violations()).toEqual([]);
  });
});
