import { seedLicense, seedSubscription } from '../support/fixtures';
import { madeBeforeAll, withOwner } from '../support/owners';
import * as licenses from '#data/license.repo';
import { bulkUntilStarted } from '../support/licenses';
import { timeFor } from '../support/time';

const { env, owner } = withOwner();
const subscription = madeBeforeAll(() => seedSubscription(env.deps, owner));

const post = (body: unknown) => env.post('/hwid/toggle-lock-bulk', body, owner.auth);
const storedLock = async (key: string) => (await licenses.get(env.deps.table, key, owner.team_id))?.hwid_lock;

describe('/hwid/toggle-lock-bulk', () => {
  it('sets hwid_lock on every key and answers them as succeeded', async () => {
    const licenses = await Promise.all([1, 2, 3].map(() => seedLicense(env.deps, subscription, { hwid_lock: false })));
    const licenseKeys = licenses.map((license) => license.key);

    const response = await post({ license_keys: licenseKeys, hwid_lock: true });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, data: { succeeded: licenseKeys, failed: [] } });
    for (const key of licenseKeys) expect(await storedLock(key)).toBe(true);
  });

  it('fails a missing key alone and still updates the others', async () => {
    const good = await seedLicense(env.deps, subscription, { hwid_lock: true });
    const missing = 'NOPE0-NOPE0-NOPE0-NOPE0-NOPE0';

    const response = await post({ license_keys: [missing, good.key], hwid_lock: false });

    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      succeeded: [good.key],
      failed: [{ license_key: missing, error_code: 'LICENSE_NOT_FOUND' }],
    });
    expect(await storedLock(good.key)).toBe(false);
    expect(await licenses.get(env.deps.table, missing, owner.team_id)).toBeUndefined();
  });

  it('answers a key sent twice once', async () => {
    const license = await seedLicense(env.deps, subscription);

    const response = await post({ license_keys: [license.key, license.key], hwid_lock: true });

    expect(response.body.data).toEqual({ succeeded: [license.key], failed: [] });
  });

  it('leaves the same end state when the request is retried', async () => {
    const license = await seedLicense(env.deps, subscription, { hwid_lock: false });

    await post({ license_keys: [license.key], hwid_lock: true });
    const retried = await post({ license_keys: [license.key], hwid_lock: true });

    expect(retried.body.data.succeeded).toEqual([license.key]);
    expect(await storedLock(license.key)).toBe(true);
  });

  it('answers each of many more keys than run at once, in the order sent', async () => {
    const licenses = await Promise.all(Array.from({ length: 40 }, () => seedLicense(env.deps, subscription, { hwid_lock: false })));
    const absent = Array.from({ length: 60 }, (_, index) => `ABSENT-${index}`);
    const licenseKeys = [...licenses.map((license) => license.key), ...absent];

    const answer = await bulkUntilStarted(env, owner, '/hwid/toggle-lock-bulk', { license_keys: licenseKeys, hwid_lock: true });

    expect(answer.succeeded).toEqual(licenses.map((license) => license.key));
    expect(answer.failed).toEqual(absent.map((key) => ({ license_key: key, error_code: 'LICENSE_NOT_FOUND' })));
    for (const license of licenses) expect(await storedLock(license.key)).toBe(true);
  // 40 licenses made, 100 keys toggled and 40 read back.
  }, timeFor(180));

  it.each([
    ['license_keys', 'is empty', { license_keys: [], hwid_lock: true }],
    ['license_keys', 'has more than 1000 entries', { license_keys: Array.from({ length: 1001 }, (_, i) => `K${i}`), hwid_lock: true }],
    ['license_keys', 'is missing', { hwid_lock: true }],
    ['license_keys.0', 'holds an empty key', { license_keys: [''], hwid_lock: true }],
    ['hwid_lock', 'is missing: a blind flip of many is not retry-safe', { license_keys: ['K'] }],
  ])('answers 400 INVALID_INPUT naming %s when it %s', async (field, _case, body) => {
    const response = await post(body);

    expect(response.status).toBe(400);
    expect(response.body.error_code).toBe('INVALID_INPUT');
    expect(response.body.error.startsWith(`${field}:`)).toBe(true);
  });
});
