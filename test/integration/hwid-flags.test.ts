import type { Clock } from '#shared/clock';
import { MAX_RESET_INTERVAL_SECONDS } from '#core/domain/fields';
import { hwidResetAvailable, hwidResetCooldown } from '#core/domain/license-view';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { madeBeforeAll, withOwner } from '../support/owners';
import * as licenses from '#data/license.repo';

const now = new Date('2026-03-01T12:00:00.000Z');
const clock: Clock = { now: () => now };

const { env, owner } = withOwner({ clock });
const subscription = madeBeforeAll(() => seedSubscription(env.deps, owner, { name: 'Basic', level: 2 }));

const storedLicense = (key: string) => licenses.get(env.deps.table, key, owner.team_id);
const missingKey = 'NOPE0-NOPE0-NOPE0-NOPE0-NOPE0';

describe.each([
  ['/hwid/toggle-lock', 'hwid_lock'],
  ['/hwid/toggle-reset-allowed', 'hwid_reset_allowed'],
] as const)('%s', (path, flag) => {
  const post = (body: unknown) => env.post(path, body, owner.auth);

  it(`sets ${flag} to an explicit value, the same value twice included`, async () => {
    const license = await seedLicense(env.deps, subscription, { [flag]: false });

    const first = await post({ license_key: license.key, [flag]: true });
    const again = await post({ license_key: license.key, [flag]: true });

    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ key: license.key, [flag]: true, subscription_name: 'Basic', subscription_level: 2 });
    expect(again.body.data[flag]).toBe(true);
    expect((await storedLicense(license.key))?.[flag]).toBe(true);
  });

  it(`flips ${flag} when no value is sent`, async () => {
    const license = await seedLicense(env.deps, subscription, { [flag]: true });

    const flipped = await post({ license_key: license.key });
    const flippedBack = await post({ license_key: license.key });

    expect(flipped.body.data[flag]).toBe(false);
    expect(flippedBack.body.data[flag]).toBe(true);
    expect((await storedLicense(license.key))?.[flag]).toBe(true);
  });

  it('counts two concurrent flips as two flips', async () => {
    const license = await seedLicense(env.deps, subscription, { [flag]: false });

    const responses = await Promise.all([post({ license_key: license.key }), post({ license_key: license.key })]);

    expect(responses.map((response) => response.status)).toEqual([200, 200]);
    expect(responses.map((response) => response.body.data[flag]).sort()).toEqual([false, true]);
    expect((await storedLicense(license.key))?.[flag]).toBe(false);
  });

  it('changes no other field of the license', async () => {
    const license = await seedLicense(env.deps, subscription, { hwid: 'kept', hwid_reset_interval: 60, tags: ['a'] });

    await post({ license_key: license.key });

    const { [flag]: _changed, ...rest } = (await storedLicense(license.key))!;
    const { [flag]: _original, ...expected } = license;
    expect(rest).toEqual(expected);
  });

  it('answers 404 LICENSE_NOT_FOUND for a key that does not exist, creating nothing', async () => {
    const response = await post({ license_key: missingKey, [flag]: true });

    expect(response.status).toBe(404);
    expect(response.body.error_code).toBe('LICENSE_NOT_FOUND');
    expect(await storedLicense(missingKey)).toBeUndefined();
  });

  it(`answers 400 INVALID_INPUT naming ${flag} when it is not a boolean`, async () => {
    const response = await post({ license_key: 'K', [flag]: 'yes' });

    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(new RegExp(`^${flag}:`));
  });

  it('answers 400 INVALID_INPUT naming license_key when it is missing', async () => {
    const response = await post({});

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error_code: 'INVALID_INPUT', error: expect.stringMatching(/^license_key:/) });
  });
});

describe('/hwid/update-reset-interval', () => {
  const post = (body: unknown) => env.post('/hwid/update-reset-interval', body, owner.auth);

  it('sets the interval, which drives the cooldown /auth reports', async () => {
    const lastReset = new Date(now.getTime() - 600_000).toISOString();
    const license = await seedLicense(env.deps, subscription, { hwid_reset_interval: 0, last_hwid_reset_at: lastReset });

    const response = await post({ license_key: license.key, hwid_reset_interval: 3600 });

    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ key: license.key, hwid_reset_interval: 3600, last_hwid_reset_at: lastReset });
    const stored = (await storedLicense(license.key))!;
    expect(stored.hwid_reset_interval).toBe(3600);
    expect(hwidResetCooldown(stored, now)).toBe(3000);
    expect(hwidResetAvailable(stored, now)).toBe(false);
  });

  it('accepts 0 (no cooldown) and ten years', async () => {
    const license = await seedLicense(env.deps, subscription);

    const zero = await post({ license_key: license.key, hwid_reset_interval: 0 });
    const longest = await post({ license_key: license.key, hwid_reset_interval: MAX_RESET_INTERVAL_SECONDS });

    expect(zero.body.data.hwid_reset_interval).toBe(0);
    expect(longest.body.data.hwid_reset_interval).toBe(10 * 365 * 86400);
  });

  it.each([
    ['negative', -1],
    ['fractional', 1.5],
    ['over ten years', MAX_RESET_INTERVAL_SECONDS + 1],
    ['a string', '60'],
    ['missing', undefined],
  ])('answers 400 INVALID_INPUT naming hwid_reset_interval when it is %s', async (_case, value) => {
    const license = await seedLicense(env.deps, subscription, { hwid_reset_interval: 5 });

    const response = await post({ license_key: license.key, hwid_reset_interval: value });

    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/^hwid_reset_interval:/);
    expect((await storedLicense(license.key))?.hwid_reset_interval).toBe(5);
  });

  it('answers 404 LICENSE_NOT_FOUND for a key that does not exist, creating nothing', async () => {
    const response = await post({ license_key: missingKey, hwid_reset_interval: 10 });

    expect(response.status).toBe(404);
    expect(response.body.error_code).toBe('LICENSE_NOT_FOUND');
    expect(await storedLicense(missingKey)).toBeUndefined();
  });
});
