import { seedLicense, seedSubscription } from '../support/fixtures';
import { checkInvariants, scanAll } from '../support/invariants';
import { madeBeforeAll, withOwner } from '../support/owners';
import * as licenses from '#data/license.repo';

/** The races of docs/client-api.md#post-reset-hwid and docs/management-api.md#devices-seats-and-self-service-reset, sent at once through the local server, checked over every stored item. */
const { env, owner } = withOwner({ config: { cacheTtlSeconds: 0 } });
const plain = madeBeforeAll(() => seedSubscription(env.deps, owner));
const singleKey = madeBeforeAll(() => seedSubscription(env.deps, owner, { single_key_per_hwid: true }));

const auth = (body: Record<string, unknown>) => env.post('/auth', { app_id: owner.app_id, ...body });
const reset = (body: Record<string, unknown>) => env.post('/reset-hwid', { app_id: owner.app_id, ...body });
const hwidIndexItems = async () => (await scanAll(env.deps.table)).filter((item) => String(item.sk).startsWith('HWID#') && item.app_id === owner.app_id);

describe('device races', () => {
  it('20 concurrent resets of one license inside one cooldown: exactly one HWID_RESET', async () => {
    const { key } = await seedLicense(env.deps, singleKey, { hwid_lock: true, hwid_reset_interval: 3600, max_devices: 2 });
    await auth({ license: key, hwid: 'reset-a' });
    await auth({ license: key, hwid: 'reset-b' });

    const responses = await Promise.all(Array.from({ length: 20 }, () => reset({ license: key })));

    const messages = responses.map((response) => response.body.message);
    expect(messages.filter((message) => message === 'HWID_RESET')).toHaveLength(1);
    // The losers read the license again: nothing is bound any more, the first check of the reset that fails.
    expect(messages.filter((message) => message === 'HWID_NOT_BOUND')).toHaveLength(19);
    expect(await licenses.get(env.deps.table, key, owner.team_id)).toMatchObject({ hwid: null, hwids: [] });
    expect((await hwidIndexItems()).filter((item) => item.license_key === key)).toEqual([]);
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });

  it('20 concurrent resets naming devices still bound after the first: one HWID_RESET, the others meet the cooldown', async () => {
    const { key } = await seedLicense(env.deps, singleKey, { hwid_lock: true, hwid_reset_interval: 3600, max_devices: 3 });
    for (const hwid of ['keep-a', 'keep-b', 'keep-c']) await auth({ license: key, hwid });

    const named = Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? 'keep-b' : 'keep-c'));
    const responses = await Promise.all(named.map((hwid) => reset({ license: key, hwid })));

    const winner = named.filter((_, index) => responses[index]!.body.message === 'HWID_RESET');
    expect(winner).toHaveLength(1);
    responses.forEach((response, index) => {
      if (response.body.message === 'HWID_RESET') return;
      expect(response.body.message).toBe(named[index] === winner[0] ? 'HWID_NOT_BOUND' : 'HWID_RESET_COOLDOWN');
      if (response.body.message === 'HWID_RESET_COOLDOWN') expect(response.body.data.hwid_reset_cooldown).toBeGreaterThan(3590);
    });
    const stored = (await licenses.get(env.deps.table, key, owner.team_id))!;
    expect(stored.hwids).toEqual(['keep-a', 'keep-b', 'keep-c'].filter((hwid) => hwid !== winner[0]));
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });

  it('max_devices 3 and 20 concurrent first activations from 20 HWIDs: exactly 3 succeed, listed, each with its index item', async () => {
    const { key } = await seedLicense(env.deps, singleKey, { hwid_lock: true, max_devices: 3 });
    const hwids = Array.from({ length: 20 }, (_, index) => `seat-${index}`);

    const responses = await Promise.all(hwids.map((hwid) => auth({ license: key, hwid })));

    const winners = hwids.filter((_, index) => responses[index]!.status === 200);
    expect(winners).toHaveLength(3);
    expect(responses.filter((response) => response.status === 403).map((response) => response.body.message)).toEqual(Array(17).fill('HWID_MISMATCH'));
    const stored = await licenses.get(env.deps.table, key, owner.team_id);
    expect([...stored!.hwids].sort()).toEqual([...winners].sort());
    expect(stored!.hwid).toBe(stored!.hwids[0]);
    const index = (await hwidIndexItems()).filter((item) => item.license_key === key);
    expect(index.map((item) => item.hwid).sort()).toEqual([...winners].sort());
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });

  it('a license without single_key_per_hwid also takes exactly max_devices of concurrent new HWIDs, and no index items', async () => {
    const { key } = await seedLicense(env.deps, plain, { hwid_lock: true, max_devices: 4 });
    const hwids = Array.from({ length: 12 }, (_, index) => `plain-seat-${index}`);

    const responses = await Promise.all(hwids.map((hwid) => auth({ license: key, hwid })));

    expect(responses.filter((response) => response.status === 200)).toHaveLength(4);
    expect((await licenses.get(env.deps.table, key, owner.team_id))!.hwids).toHaveLength(4);
    expect((await hwidIndexItems()).filter((item) => item.license_key === key)).toEqual([]);
  });

  it('lowering max_devices while new HWIDs bind never leaves more HWIDs than seats', async () => {
    const { key } = await seedLicense(env.deps, singleKey, { hwid_lock: true, max_devices: 5 });
    await auth({ license: key, hwid: 'low-0' });

    const [lowered, ...activations] = await Promise.all([
      env.post('/hwid/set-max-devices', { license_key: key, max_devices: 2 }, owner.auth),
      ...Array.from({ length: 6 }, (_, index) => auth({ license: key, hwid: `low-${index + 1}` })),
    ]);

    expect([200, 400]).toContain(lowered!.status);
    const stored = (await licenses.get(env.deps.table, key, owner.team_id))!;
    expect(stored.hwids.length).toBeLessThanOrEqual(stored.max_devices);
    expect(activations.filter((response) => response.status === 200).length).toBe(stored.hwids.length - 1);
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });
});
