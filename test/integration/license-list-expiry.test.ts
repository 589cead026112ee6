import { createFakeClock } from '../support/clock';
import { startTestEvents, type TestEvents } from '../support/events';
import { startTestServer, type TestServer } from '../support/env';
import { seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';

const clock = createFakeClock(new Date('2026-03-10T12:00:00.000Z'));
let env: TestServer;
let events: TestEvents;
let owner: Owner;
/** Keys by what they are when the tests run: 2026-03-20 noon. */
const made: Record<'unused' | 'expired' | 'inThreeDays' | 'inTwentyDays' | 'pausedInFiveDays', string> = {} as never;

async function createLicense(days: number): Promise<string> {
  const subscription = await seedSubscription(env.deps, owner);
  const created = await env.post(
    '/license/create',
    { app_id: owner.app_id, subscription_id: subscription.subscription_id, duration_unit: 'days', duration_value: days, tags: ['expiry'] },
    owner.auth,
  );
  expect(created.status).toBe(200);
  clock.advance(1);
  return created.body.data.key;
}
const activate = async (license: string) => expect((await env.post('/auth', { app_id: owner.app_id, license })).status).toBe(200);

beforeAll(async () => {
  env = await startTestServer({ clock, config: { cacheTtlSeconds: 0 } });
  events = await startTestEvents(env);
  owner = await createOwner(env.deps);
  made.unused = await createLicense(1);
  made.expired = await createLicense(5);
  made.inThreeDays = await createLicense(13);
  made.inTwentyDays = await createLicense(30);
  made.pausedInFiveDays = await createLicense(15);
  for (const key of [made.expired, made.inThreeDays, made.inTwentyDays, made.pausedInFiveDays]) await activate(key);
  await env.post('/license/update-status', { license_key: made.pausedInFiveDays, status: 'paused' }, owner.auth);
  await events.drain();
  clock.set(new Date('2026-03-20T12:00:00.000Z'));
});
afterAll(async () => {
  await events.stop();
  await env.close();
});

/** Every key a listing answers, page by page (`per_page` small, so the cursors are used). */
async function keysListed(body: Record<string, unknown>, perPage = 2): Promise<string[]> {
  const found: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await env.post('/license/get-bulk', { app_id: owner.app_id, per_page: perPage, ...body, ...(cursor ? { cursor } : {}) }, owner.auth);
    expect(page.status).toBe(200);
    found.push(...page.body.data.map((license: { key: string }) => license.key));
    cursor = page.body.next_cursor;
  } while (cursor);
  return found;
}

describe('POST /license/get-bulk: expiry filters and the order by expiry', () => {
  it('filters expired, not expired, unused, used and expiring within N days, newest first, across pages', async () => {
    expect(await keysListed({ expired: true })).toEqual([made.expired]);
    expect(await keysListed({ expired: false })).toEqual([made.pausedInFiveDays, made.inTwentyDays, made.inThreeDays, made.unused]);
    expect(await keysListed({ unused: true })).toEqual([made.unused]);
    expect(await keysListed({ unused: false }, 1)).toEqual([made.pausedInFiveDays, made.inTwentyDays, made.inThreeDays, made.expired]);
    expect(await keysListed({ expiring_within_days: 7 })).toEqual([made.pausedInFiveDays, made.inThreeDays]);
    expect(await keysListed({ expiring_within_days: 7, status: 'active' })).toEqual([made.inThreeDays]);
    expect(await keysListed({ expiring_within_days: 30, sort_order: 'asc' })).toEqual([made.inThreeDays, made.inTwentyDays, made.pausedInFiveDays]);
  });

  it('sorts the licenses that have an expiry by it, both ways, with the other filters, across pages', async () => {
    expect(await keysListed({ sort_field: 'expires_at', sort_order: 'asc' }, 1)).toEqual([made.expired, made.inThreeDays, made.pausedInFiveDays, made.inTwentyDays]);
    expect(await keysListed({ sort_field: 'expires_at' })).toEqual([made.inTwentyDays, made.pausedInFiveDays, made.inThreeDays, made.expired]);
    expect(await keysListed({ sort_field: 'expires_at', sort_order: 'asc', status: 'active', expired: false })).toEqual([made.inThreeDays, made.inTwentyDays]);
    expect(await keysListed({ sort_field: 'expires_at', tag: 'none-has-it' })).toEqual([]);
  });

  it('moves an extended license in the order once the stream is consumed, and never lists it twice meanwhile', async () => {
    const extended = await env.post('/license/extend', { license_key: made.inThreeDays, extend_seconds: 30 * 86400 }, owner.auth);
    expect(extended.status).toBe(200);
    const meanwhile = await keysListed({ sort_field: 'expires_at', sort_order: 'asc' });
    expect(meanwhile.filter((key) => key === made.inThreeDays).length).toBeLessThanOrEqual(1);
    await events.drain();
    expect(await keysListed({ sort_field: 'expires_at', sort_order: 'asc' })).toEqual([made.expired, made.pausedInFiveDays, made.inTwentyDays, made.inThreeDays]);
  });

  it('refuses a cursor of one order in the other, and bad filter values, with INVALID_INPUT', async () => {
    const byCreation = await env.post('/license/get-bulk', { app_id: owner.app_id, per_page: 1 }, owner.auth);
    const byExpiry = await env.post('/license/get-bulk', { app_id: owner.app_id, per_page: 1, sort_field: 'expires_at' }, owner.auth);
    const bad = [
      { sort_field: 'expires_at', cursor: byCreation.body.next_cursor },
      { cursor: byExpiry.body.next_cursor },
      { expiring_within_days: 0 },
      { expiring_within_days: 1.5 },
      { expired: 'yes' },
      { sort_field: 'last_login' },
    ];
    for (const body of bad) {
      const answer = await env.post('/license/get-bulk', { app_id: owner.app_id, ...body }, owner.auth);
      expect([answer.status, answer.body.error_code]).toEqual([400, 'INVALID_INPUT']);
    }
  });
});
