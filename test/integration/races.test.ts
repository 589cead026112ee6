import { seedLicense, seedSubscription } from '../support/fixtures';
import { checkInvariants, scanAll } from '../support/invariants';
import { madeBeforeAll, withOwner } from '../support/owners';
import * as licensesRepo from '#data/license.repo';
import { timeFor } from '../support/time';

/**
 * The invariants of the issue, each under the race that would break it, each
 * checked afterwards over every item of the table (not only over the answers).
 */
const { env, owner } = withOwner({ config: { cacheTtlSeconds: 0 } });
const singleKey = madeBeforeAll(() => seedSubscription(env.deps, owner, { single_key_per_hwid: true }));

const auth = (body: Record<string, unknown>) => env.post('/auth', { app_id: owner.app_id, ...body });
const register = (license: string, username: string) =>
  env.post('/register', { app_id: owner.app_id, license, username, password: 'password-1' });
const lockedLicenses = (amount: number) => Promise.all(Array.from({ length: amount }, () => seedLicense(env.deps, singleKey, { hwid_lock: true })));
const tableViolations = async () => checkInvariants(await scanAll(env.deps.table));

describe('races over the stored items', () => {
  it('every bound HWID holds one license and every locked license one HWID when 4 licenses race for 4 devices', async () => {
    const licenses = await lockedLicenses(4);
    const devices = ['dev-a', 'dev-b', 'dev-c', 'dev-d'];

    const responses = await Promise.all(licenses.flatMap((license) => devices.map((hwid) => auth({ license: license.key, hwid }))));

    expect(responses.every((response) => response.status === 200 || response.status === 403)).toBe(true);
    const stored = await Promise.all(licenses.map((license) => licensesRepo.get(env.deps.table, license.key, license.team_id)));
    const bound = stored.map((license) => license!.hwid).filter((hwid) => hwid !== null);
    expect(new Set(bound).size).toBe(bound.length);
    expect(bound.length).toBeGreaterThanOrEqual(1);
    expect(await tableViolations()).toEqual([]);
  });

  it('a username belongs to one license when 5 licenses register it at once', async () => {
    const licenses = await lockedLicenses(5);

    const responses = await Promise.all(licenses.map((license) => register(license.key, 'contested-name')));

    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    expect(responses.filter((response) => response.body.message === 'USERNAME_TAKEN')).toHaveLength(4);
    expect(await tableViolations()).toEqual([]);
  });

  it('one request_id extends once when 6 retries of it race', async () => {
    const licenses = await lockedLicenses(3);
    const body = { license_keys: licenses.map((license) => license.key), extend_seconds: 600, request_id: 'race-once' };

    const responses = await Promise.all(Array.from({ length: 6 }, () => env.post('/license/extend-bulk', body, owner.auth)));

    // Any other answer shown whole, with what it said (one run at load average 13 with two jest workers had one).
    expect(responses.filter((response) => response.status !== 200).map((response) => ({ status: response.status, body: response.body }))).toEqual([]);
    for (const license of licenses) {
      expect((await licensesRepo.get(env.deps.table, license.key, license.team_id))?.initial_duration).toBe(license.initial_duration + 600);
    }
    expect(await tableViolations()).toEqual([]);
  });

  it('a delete racing first activations and a registration leaves no index item pointing at a missing license', async () => {
    for (let round = 0; round < 5; round++) {
      const [license] = await lockedLicenses(1);
      const key = license!.key;

      const [deleted, registered, ...activations] = await Promise.all([
        env.post('/license/delete', { license_key: key }, owner.auth),
        register(key, `late-user-${round}`),
        ...Array.from({ length: 8 }, (_, device) => auth({ license: key, hwid: `doomed-${round}-${device}` })),
      ]);

      expect(deleted!.status).toBe(200);
      expect([200, 403]).toContain(registered!.status);
      if (registered!.status === 403) expect(registered!.body.message).toBe('LICENSE_NOT_FOUND');
      for (const activation of activations) {
        expect([200, 403]).toContain(activation.status);
        if (activation.status === 403) expect(['LICENSE_NOT_FOUND', 'HWID_MISMATCH']).toContain(activation.body.message);
      }
      expect(await licensesRepo.get(env.deps.table, key, owner.team_id)).toBeUndefined();
    }
    expect(await tableViolations()).toEqual([]);
  });

  it('no extension is lost when 60 extensions race 60 first activations', async () => {
    const plain = await seedSubscription(env.deps, owner);
    const licenses = await Promise.all(Array.from({ length: 60 }, () => seedLicense(env.deps, plain)));

    const responses = await Promise.all(
      licenses.flatMap((license) => [
        env.post('/license/extend', { license_key: license.key, extend_seconds: 3600 }, owner.auth),
        auth({ license: license.key }),
      ]),
    );

    expect(responses.every((response) => response.status === 200)).toBe(true);
    for (const license of licenses) {
      const stored = (await licensesRepo.get(env.deps.table, license.key, license.team_id))!;
      const runs = Date.parse(stored.expires_at!) - Date.parse(stored.first_used_at!);
      expect({ key: license.key, runs }).toEqual({ key: license.key, runs: (license.initial_duration + 3600) * 1000 });
    }
  // 60 licenses made, 120 requests at once and 60 reads: on a busy machine the store takes its time over them.
  }, timeFor(240));
});
