import { getItem } from '#data/db';
import { keys } from '#data/keys';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { bulkUntilStarted, createInBulk, listAllLicenses } from '../support/licenses';
import { madeBeforeAll, withOwner } from '../support/owners';
import * as licensesRepo from '#data/license.repo';

const now = new Date('2026-06-01T12:00:00.000Z');
const { env, owner } = withOwner({ clock: { now: () => now } });
const subscription = madeBeforeAll(() => seedSubscription(env.deps, owner));

const usedLicense = () =>
  seedLicense(env.deps, subscription, {
    first_used_at: '2026-05-01T00:00:00.000Z',
    last_login: '2026-05-20T00:00:00.000Z',
    expires_at: '2026-05-31T00:00:00.000Z',
  });

describe('POST /license/extend', () => {
  it('adds the seconds to initial_duration of an unused license, whose clock has not started', async () => {
    const license = await seedLicense(env.deps, subscription, { initial_duration: 86400 });

    const response = await env.post('/license/extend', { license_key: license.key, extend_seconds: 3600 }, owner.auth);

    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ key: license.key, initial_duration: 90000, expires_at: null, subscription_name: 'Pro' });
    expect(await licensesRepo.get(env.deps.table, license.key, license.team_id)).toMatchObject({ initial_duration: 90000, expires_at: null });
  });

  it('adds the seconds to expires_at of a used license and keeps initial_duration', async () => {
    const license = await usedLicense();

    const response = await env.post('/license/extend', { license_key: license.key, extend_seconds: 86400 }, owner.auth);

    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ expires_at: '2026-06-01T00:00:00.000Z', initial_duration: license.initial_duration });
    expect((await licensesRepo.get(env.deps.table, license.key, license.team_id))?.expires_at).toBe('2026-06-01T00:00:00.000Z');
  });

  it('counts every one of 10 concurrent extensions of one license', async () => {
    const license = await usedLicense();

    const responses = await Promise.all(
      Array.from({ length: 10 }, () => env.post('/license/extend', { license_key: license.key, extend_seconds: 60 }, owner.auth)),
    );

    expect(responses.map((response) => response.status)).toEqual(Array(10).fill(200));
    expect((await licensesRepo.get(env.deps.table, license.key, license.team_id))?.expires_at).toBe('2026-05-31T00:10:00.000Z');
  });

  it.each([
    ['extend_seconds is 0', { extend_seconds: 0 }, 'extend_seconds'],
    ['extend_seconds is a string', { extend_seconds: '60' }, 'extend_seconds'],
    ['extend_seconds exceeds 10 years', { extend_seconds: 10 * 365 * 86400 + 1 }, 'extend_seconds'],
    ['license_key is missing', { license_key: undefined }, 'license_key'],
  ])('answers 400 INVALID_INPUT naming the field when %s', async (_case, change, field) => {
    const response = await env.post('/license/extend', { license_key: 'ANY-KEY', extend_seconds: 60, ...change }, owner.auth);
    expect(response.status).toBe(400);
    expect(response.body.error_code).toBe('INVALID_INPUT');
    expect(response.body.error.startsWith(`${field}: `)).toBe(true);
  });

  it('answers 404 LICENSE_NOT_FOUND for a key that does not exist', async () => {
    const response = await env.post('/license/extend', { license_key: 'NO-SUCH-KEY', extend_seconds: 60 }, owner.auth);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'License not found', error_code: 'LICENSE_NOT_FOUND' });
  });
});

describe('POST /license/extend-bulk', () => {
  it('extends 1000 licenses, losing none, and get-bulk counts them back', async () => {
    const bulkSubscription = await seedSubscription(env.deps, owner, { name: 'Bulk' });
    const created = await createInBulk(env, owner, {
      key_amount: 1000,
      app_id: owner.app_id,
      subscription_id: bulkSubscription.subscription_id,
      duration_unit: 'days',
      duration_value: 1,
      request_id: 'bulk-1000-licenses',
    });
    // The whole answer, so a refusal on a busy machine shows its status and body.
    expect(created).toMatchObject({ status: 200 });
    const licenseKeys: string[] = created.body.data.map((license: { key: string }) => license.key);

    const answer = await bulkUntilStarted(env, owner, '/license/extend-bulk', { license_keys: licenseKeys, extend_seconds: 600, request_id: 'bulk-1000' });

    expect(answer.failed).toEqual([]);
    expect(answer.succeeded).toHaveLength(1000);
    const { licenses } = await listAllLicenses(env, owner, { app_id: owner.app_id, subscription_id: bulkSubscription.subscription_id, per_page: 100 });
    expect(licenses).toHaveLength(1000);
    expect(licenses.filter((license) => license.initial_duration === 86400 + 600)).toHaveLength(1000);
  // 1000 creations and 1000 extensions, in as many sends as the time budget takes on a busy machine, then 10 pages.
  }, 300_000);

  it('answers per key: missing keys fail with LICENSE_NOT_FOUND, duplicates are answered and extended once', async () => {
    const [first, second] = await Promise.all([seedLicense(env.deps, subscription), seedLicense(env.deps, subscription)]);

    const response = await env.post(
      '/license/extend-bulk',
      { license_keys: [first.key, 'MISSING-1', second.key, first.key], extend_seconds: 100 },
      owner.auth,
    );

    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      succeeded: [first.key, second.key],
      failed: [{ license_key: 'MISSING-1', error_code: 'LICENSE_NOT_FOUND' }],
    });
    expect((await licensesRepo.get(env.deps.table, first.key, first.team_id))?.initial_duration).toBe(first.initial_duration + 100);
    expect((await licensesRepo.get(env.deps.table, second.key, second.team_id))?.initial_duration).toBe(second.initial_duration + 100);
  });

  it('makes a retried request with the same request_id a no-op, even when the retries race', async () => {
    const licenses = await Promise.all(Array.from({ length: 5 }, () => usedLicense()));
    const body = { license_keys: licenses.map((license) => license.key), extend_seconds: 3600, request_id: 'retry-me' };

    const first = await env.post('/license/extend-bulk', body, owner.auth);
    const retries = await Promise.all([1, 2, 3].map(() => env.post('/license/extend-bulk', body, owner.auth)));

    for (const response of [first, ...retries]) {
      expect(response.body.data).toEqual({ succeeded: body.license_keys, failed: [] });
    }
    for (const license of licenses) {
      expect((await licensesRepo.get(env.deps.table, license.key, license.team_id))?.expires_at).toBe('2026-05-31T01:00:00.000Z');
    }
  });

  it('after a run that stopped midway, a retry extends only the keys not yet done', async () => {
    const [done, pending] = await Promise.all([usedLicense(), usedLicense()]);
    await env.post('/license/extend-bulk', { license_keys: [done.key], extend_seconds: 3600, request_id: 'crashed' }, owner.auth);

    const retry = await env.post('/license/extend-bulk', { license_keys: [done.key, pending.key], extend_seconds: 3600, request_id: 'crashed' }, owner.auth);

    expect(retry.body.data).toEqual({ succeeded: [done.key, pending.key], failed: [] });
    expect((await licensesRepo.get(env.deps.table, done.key, done.team_id))?.expires_at).toBe('2026-05-31T01:00:00.000Z');
    expect((await licensesRepo.get(env.deps.table, pending.key, pending.team_id))?.expires_at).toBe('2026-05-31T01:00:00.000Z');
  });

  it('extends exactly once when the first attempts of one request_id race each other', async () => {
    const license = await usedLicense();
    const body = { license_keys: [license.key], extend_seconds: 3600, request_id: 'racing-first' };

    await Promise.all(Array.from({ length: 5 }, () => env.post('/license/extend-bulk', body, owner.auth)));

    expect((await licensesRepo.get(env.deps.table, license.key, license.team_id))?.expires_at).toBe('2026-05-31T01:00:00.000Z');
  });

  it('extends again under a new request_id and keeps its marker for 7 days', async () => {
    const license = await usedLicense();
    await env.post('/license/extend-bulk', { license_keys: [license.key], extend_seconds: 3600, request_id: 'day-1' }, owner.auth);

    await env.post('/license/extend-bulk', { license_keys: [license.key], extend_seconds: 3600, request_id: 'day-2' }, owner.auth);

    expect((await licensesRepo.get(env.deps.table, license.key, license.team_id))?.expires_at).toBe('2026-05-31T02:00:00.000Z');
    const marker = await getItem(env.deps.table, keys.bulkMarker(owner.team_id, '/license/extend-bulk', { ownerRequestId: 'day-2', gatewayRequestId: 'unused' }, license.key));
    expect(marker?.ttl).toBe(now.getTime() / 1000 + 7 * 86400);
  });

  it('answers 400 for an empty list, more than 1000 keys, or an empty request_id', async () => {
    const cases = [
      [{ license_keys: [], extend_seconds: 1 }, 'license_keys'],
      [{ license_keys: Array.from({ length: 1001 }, (_, i) => `K-${i}`), extend_seconds: 1 }, 'license_keys'],
      [{ license_keys: ['K-1'], extend_seconds: 1, request_id: '' }, 'request_id'],
    ] as const;
    for (const [body, field] of cases) {
      const response = await env.post('/license/extend-bulk', body, owner.auth);
      expect(response.status).toBe(400);
      expect(response.body.error.startsWith(`${field}: `)).toBe(true);
    }
  });
});
