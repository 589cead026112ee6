import type { Clock } from '#shared/clock';
import { hwidResetAvailable, hwidResetCooldown } from '#core/domain/license-view';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { withOwner } from '../support/owners';
import * as hwids from '#data/hwid.repo';
import * as licenses from '#data/license.repo';
import * as subscriptions from '#data/subscription.repo';

const now = new Date('2026-03-01T12:00:00.000Z');
const clock: Clock = { now: () => now };

const { env, owner } = withOwner({ clock });

const edit = (body: unknown) => env.post('/hwid/edit', body, owner.auth);
const storedLicense = (key: string) => licenses.get(env.deps.table, key, owner.team_id);
const indexItem = (hwid: string) => hwids.get(env.deps.table, owner.app_id, hwid);

describe('/hwid/edit', () => {
  it('sets an HWID and answers the license record with its subscription’s name and level', async () => {
    const subscription = await seedSubscription(env.deps, owner, { name: 'Gold', level: 7 });
    const license = await seedLicense(env.deps, subscription);

    const response = await edit({ license_key: license.key, hwid: 'device-a' });

    expect(response.status).toBe(200);
    expect(response.body.success).toBe(true);
    expect(response.body.data).toMatchObject({
      key: license.key,
      hwid: 'device-a',
      subscription_name: 'Gold',
      subscription_level: 7,
      last_hwid_reset_at: null,
    });
    expect(response.body.data).not.toHaveProperty('team_id');
    expect((await storedLicense(license.key))?.hwid).toBe('device-a');
  });

  it('claims no HWID index item when the subscription allows several keys per device', async () => {
    const subscription = await seedSubscription(env.deps, owner, { single_key_per_hwid: false });
    const license = await seedLicense(env.deps, subscription);

    await edit({ license_key: license.key, hwid: 'shared-device' });

    expect(await indexItem('shared-device')).toBeUndefined();
  });

  it('claims the device for the license under single_key_per_hwid and moves the claim when the HWID changes', async () => {
    const subscription = await seedSubscription(env.deps, owner, { single_key_per_hwid: true });
    const license = await seedLicense(env.deps, subscription);

    await edit({ license_key: license.key, hwid: 'first-device' });
    expect(await indexItem('first-device')).toEqual({ app_id: owner.app_id, hwid: 'first-device', license_key: license.key });

    const response = await edit({ license_key: license.key, hwid: 'second-device' });

    expect(response.status).toBe(200);
    expect(await indexItem('first-device')).toBeUndefined();
    expect(await indexItem('second-device')).toMatchObject({ license_key: license.key });
  });

  it('clears the HWID, frees its index item and starts the reset cooldown', async () => {
    const subscription = await seedSubscription(env.deps, owner, { single_key_per_hwid: true });
    const license = await seedLicense(env.deps, subscription, { hwid_reset_interval: 3600 });
    await edit({ license_key: license.key, hwid: 'to-clear' });

    const response = await edit({ license_key: license.key, hwid: null });

    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ hwid: null, last_hwid_reset_at: now.toISOString() });
    expect(await indexItem('to-clear')).toBeUndefined();
    const stored = (await storedLicense(license.key))!;
    expect(stored.last_hwid_reset_at).toBe(now.toISOString());
    expect(hwidResetCooldown(stored, now)).toBe(3600);
    expect(hwidResetAvailable(stored, now)).toBe(false);
  });

  it('leaves alone an index item that another license holds for the same HWID', async () => {
    const loose = await seedSubscription(env.deps, owner, { single_key_per_hwid: false });
    const strict = await seedSubscription(env.deps, owner, { single_key_per_hwid: true });
    const looseLicense = await seedLicense(env.deps, loose, { hwid: 'two-licenses' });
    const strictLicense = await seedLicense(env.deps, strict);
    await edit({ license_key: strictLicense.key, hwid: 'two-licenses' });

    const response = await edit({ license_key: looseLicense.key, hwid: null });

    expect(response.status).toBe(200);
    expect(await indexItem('two-licenses')).toMatchObject({ license_key: strictLicense.key });
  });

  it('does not touch last_hwid_reset_at when setting an HWID', async () => {
    const subscription = await seedSubscription(env.deps, owner);
    const license = await seedLicense(env.deps, subscription, { last_hwid_reset_at: '2026-01-01T00:00:00.000Z' });

    await edit({ license_key: license.key, hwid: 'new-device' });

    expect((await storedLicense(license.key))?.last_hwid_reset_at).toBe('2026-01-01T00:00:00.000Z');
  });

  it('answers 409 HWID_IN_USE when another license holds the device under single_key_per_hwid, changing nothing', async () => {
    const subscription = await seedSubscription(env.deps, owner, { single_key_per_hwid: true });
    const holder = await seedLicense(env.deps, subscription);
    const other = await seedLicense(env.deps, subscription, { hwid: 'others-device' });
    await edit({ license_key: holder.key, hwid: 'held-device' });

    const response = await edit({ license_key: other.key, hwid: 'held-device' });

    expect(response.status).toBe(409);
    expect(response.body).toEqual({ error: expect.any(String), error_code: 'HWID_IN_USE' });
    expect((await storedLicense(other.key))?.hwid).toBe('others-device');
    expect(await indexItem('held-device')).toMatchObject({ license_key: holder.key });
  });

  it('lets exactly one of two licenses racing for one device win it', async () => {
    const subscription = await seedSubscription(env.deps, owner, { single_key_per_hwid: true });
    const first = await seedLicense(env.deps, subscription);
    const second = await seedLicense(env.deps, subscription);

    const responses = await Promise.all([first, second].map((license) => edit({ license_key: license.key, hwid: 'contested' })));

    expect(responses.map((response) => response.status).sort()).toEqual([200, 409]);
    const winner = responses[0]!.status === 200 ? first : second;
    const loser = winner === first ? second : first;
    expect(await indexItem('contested')).toMatchObject({ license_key: winner.key });
    expect((await storedLicense(winner.key))?.hwid).toBe('contested');
    expect((await storedLicense(loser.key))?.hwid).toBeNull();
  });

  it('leaves no orphaned index item when one license is set to several HWIDs at once', async () => {
    const subscription = await seedSubscription(env.deps, owner, { single_key_per_hwid: true });
    const license = await seedLicense(env.deps, subscription);
    const hwids = ['race-1', 'race-2', 'race-3', 'race-4'];

    const responses = await Promise.all(hwids.map((hwid) => edit({ license_key: license.key, hwid })));

    for (const response of responses) expect([200, 409]).toContain(response.status);
    const bound = (await storedLicense(license.key))!.hwid;
    expect(hwids).toContain(bound);
    for (const hwid of hwids) {
      const item = await indexItem(hwid);
      if (hwid === bound) expect(item).toMatchObject({ license_key: license.key });
      else expect(item).toBeUndefined();
    }
  });

  it('shows null subscription name and level for a license whose subscription was deleted', async () => {
    const subscription = await seedSubscription(env.deps, owner);
    const license = await seedLicense(env.deps, subscription);
    await subscriptions.remove(env.deps.table, subscription.subscription_id);

    const response = await edit({ license_key: license.key, hwid: 'orphan-device' });

    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ subscription_name: null, subscription_level: null, hwid: 'orphan-device' });
  });

  it('answers 404 LICENSE_NOT_FOUND for a key that does not exist', async () => {
    const response = await edit({ license_key: 'NOPE0-NOPE0-NOPE0-NOPE0-NOPE0', hwid: 'x' });

    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'License not found', error_code: 'LICENSE_NOT_FOUND' });
  });

  it.each([
    ['license_key', 'is missing', { hwid: 'x' }],
    ['hwid', 'is missing', { license_key: 'K' }],
    ['hwid', 'is empty', { license_key: 'K', hwid: '' }],
    ['hwid', 'is longer than 256 characters', { license_key: 'K', hwid: 'h'.repeat(257) }],
    ['hwid', 'is not a string', { license_key: 'K', hwid: 42 }],
  ])('answers 400 INVALID_INPUT naming %s when it %s', async (field, _case, body) => {
    const response = await edit(body);

    expect(response.status).toBe(400);
    expect(response.body.error_code).toBe('INVALID_INPUT');
    expect(response.body.error).toMatch(new RegExp(`^${field}:`));
  });

  it('answers 401 MISSING_AUTH without an API key', async () => {
    const response = await env.post('/hwid/edit', { license_key: 'K', hwid: null });

    expect(response.status).toBe(401);
    expect(response.body.error_code).toBe('MISSING_AUTH');
  });
});
