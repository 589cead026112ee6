import { createFakeClock } from '../support/clock';
import { startTestEvents, type TestEvents } from '../support/events';
import { startTestServer, type TestServer } from '../support/env';
import { seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';

const clock = createFakeClock(new Date('2026-03-10T12:00:00.000Z'));
let env: TestServer;
let events: TestEvents;
let owner: Owner;

beforeAll(async () => {
  env = await startTestServer({ clock, config: { cacheTtlSeconds: 0 } });
  events = await startTestEvents(env);
  owner = await createOwner(env.deps);
});
afterAll(async () => {
  await events.stop();
  await env.close();
});

async function createLicenses(subscriptionId: string, amount: number, seconds: number): Promise<string[]> {
  const created = await env.post(
    '/license/create-bulk',
    { key_amount: amount, app_id: owner.app_id, subscription_id: subscriptionId, duration_unit: 'seconds', duration_value: seconds, hwid_lock: false, tags: [] },
    owner.auth,
  );
  expect(created.status).toBe(200);
  return created.body.data.map((license: { key: string }) => license.key);
}

const auth = (license: string) => env.post('/auth', { app_id: owner.app_id, license });

/** Every license of the app through /license/get-bulk, page by page. */
async function listedLicenses(): Promise<{ status: string; expires_at: string | null; first_used_at: string | null }[]> {
  const found = [];
  let cursor: string | null = null;
  do {
    const page = await env.post('/license/get-bulk', { app_id: owner.app_id, per_page: 100, ...(cursor ? { cursor } : {}) }, owner.auth);
    found.push(...page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor);
  return found;
}

describe('POST /app/stats', () => {
  it('totals agree with /license/get-bulk and the days count what happened, after a scripted mix', async () => {
    const subscription = await seedSubscription(env.deps, owner);
    // Day 1 (2026-03-10): 6 licenses, 4 activated (one of them twice), one paused, one deleted, 3 failed /auths.
    const day1 = await createLicenses(subscription.subscription_id, 6, 30 * 86400);
    for (const key of day1.slice(0, 4)) expect((await auth(key)).status).toBe(200);
    clock.advance(1);
    expect((await auth(day1[0]!)).status).toBe(200);
    await env.post('/license/update-status', { license_key: day1[1], status: 'paused' }, owner.auth);
    await env.post('/license/delete', { license_key: day1[5] }, owner.auth);
    expect((await auth(day1[1]!)).body.message).toBe('LICENSE_NOT_ACTIVE');
    expect((await auth('NO-SUCH-KEY')).body.message).toBe('LICENSE_NOT_FOUND');
    expect((await auth('NO-SUCH-KEY')).body.message).toBe('LICENSE_NOT_FOUND');

    // Day 2: 2 short licenses, both activated; a day later they have expired (and a third /auth fails on one).
    clock.advance(86400);
    const day2 = await createLicenses(subscription.subscription_id, 2, 60);
    for (const key of day2) expect((await auth(key)).status).toBe(200);
    clock.advance(86400);
    expect((await auth(day2[0]!)).body.message).toBe('LICENSE_EXPIRED');
    await events.drain();

    const stats = await env.post('/app/stats', { app_id: owner.app_id, days: 3 }, owner.auth);
    expect(stats.status).toBe(200);

    const listed = await listedLicenses();
    const now = clock.now().toISOString();
    const expired = listed.filter((license) => license.status === 'active' && license.expires_at !== null && license.expires_at <= now).length;
    const paused = (await env.post('/license/get-bulk', { app_id: owner.app_id, status: 'paused', per_page: 100 }, owner.auth)).body.data.length;
    expect(stats.body.data.totals).toEqual({
      licenses: listed.length,
      active: listed.length - paused - expired,
      paused,
      expired,
      unused: listed.filter((license) => license.first_used_at === null).length,
    });
    expect(stats.body.data.totals).toEqual({ licenses: 7, active: 4, paused: 1, expired: 2, unused: 1 });
    expect(stats.body.data.days).toEqual([
      { date: '2026-03-10', created: 6, activated: 4, logins: 5, auth_failures: 3 },
      { date: '2026-03-11', created: 2, activated: 2, logins: 2, auth_failures: 0 },
      { date: '2026-03-12', created: 0, activated: 0, logins: 0, auth_failures: 1 },
    ]);
  });

  it('has every UTC day of the window, 30 by default, oldest first, today last', async () => {
    const stats = await env.post('/app/stats', { app_id: owner.app_id }, owner.auth);
    const dates = stats.body.data.days.map((day: { date: string }) => day.date);
    expect(dates).toHaveLength(30);
    expect(dates.at(-1)).toBe('2026-03-12');
    expect(dates[0]).toBe('2026-02-11');
  });

  it('answers ACCESS_DENIED for another owner\'s app and INVALID_INPUT for days out of 1..90', async () => {
    const other = await createOwner(env.deps);
    expect((await env.post('/app/stats', { app_id: other.app_id }, owner.auth)).body.error_code).toBe('ACCESS_DENIED');
    for (const days of [0, 91, 1.5]) {
      const answer = await env.post('/app/stats', { app_id: owner.app_id, days }, owner.auth);
      expect(answer.status).toBe(400);
      expect(answer.body.error_code).toBe('INVALID_INPUT');
    }
  });
});
