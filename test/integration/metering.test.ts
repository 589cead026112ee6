import { decodeJwt } from 'jose';
import type { Subscription } from '#data/model/subscription';
import type { UsagePeriod } from '#shared/usage-periods';
import { createFakeClock } from '../support/clock';
import { startTestServer, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { scanAll } from '../support/invariants';
import { createOwner, type Owner } from '../support/owners';
import * as licenses from '#data/license.repo';

/**
 * Entitlements, metered usage and grace periods through the local server and
 * DynamoDB Local: counts raced by real requests, checked in the answers and in
 * the stored counter.
 */
const clock = createFakeClock(new Date('2026-03-04T10:00:00.000Z'));
let env: TestServer;
let owner: Owner;
let metered: Subscription;

beforeAll(async () => {
  env = await startTestServer({ clock, config: { cacheTtlSeconds: 0 } });
  owner = await createOwner(env.deps);
  metered = await seedSubscription(env.deps, owner, {
    features: ['reports'],
    usage_limits: { exports: { limit: 10, period: 'day', overage: 2 }, api: { limit: 1000, period: 'month', overage: 0 } },
  });
}, 60_000);
afterAll(() => env.close());

const inADay = () => new Date(clock.now().getTime() + 86400_000).toISOString();
/** A license in use (its clock started), so /usage may count on it. */
const usedLicense = (subscription: Subscription = metered, overrides: Parameters<typeof seedLicense>[2] = {}) =>
  seedLicense(env.deps, subscription, { first_used_at: clock.now().toISOString(), expires_at: inADay(), ...overrides });
const usage = (body: Record<string, unknown>) => env.post('/usage', { app_id: owner.app_id, ...body });
const manage = (path: string, body: Record<string, unknown>) => env.post(path, body, owner.auth);
const record = async (key: string) => (await manage('/license/get', { license_key: key })).body.data;
const counter = async (key: string, name: string) => (await record(key)).usage.find((entry: { counter: string }) => entry.counter === name);

describe('POST /usage', () => {
  it('counts exactly limit + overage = 12 of 30 concurrent calls, and refuses the rest', async () => {
    const license = await usedLicense();

    const answers = await Promise.all(Array.from({ length: 30 }, () => usage({ license: license.key, counter: 'exports' })));

    const counted = answers.filter((answer) => answer.status === 200);
    expect(counted).toHaveLength(12);
    expect(counted.every((answer) => answer.body.message === 'USAGE_RECORDED')).toBe(true);
    expect(new Set(counted.map((answer) => answer.body.data.used))).toEqual(new Set(Array.from({ length: 12 }, (_, index) => index + 1)));
    const refused = answers.filter((answer) => answer.status === 403);
    expect(refused).toHaveLength(18);
    expect(refused.every((answer) => answer.body.message === 'USAGE_LIMIT_REACHED')).toBe(true);
    expect(await counter(license.key, 'exports')).toEqual({
      counter: 'exports', used: 12, limit: 10, overage: 2, remaining: 0, period: 'day', resets_at: '2026-03-05T00:00:00.000Z',
    });
  });

  it('counts an amount at once and refuses one that would pass the limit, counting nothing', async () => {
    const license = await usedLicense();
    expect((await usage({ license: license.key, counter: 'exports', amount: 5 })).body.data).toMatchObject({ used: 5, remaining: 7 });
    const refused = await usage({ license: license.key, counter: 'exports', amount: 8 });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      success: false,
      message: 'USAGE_LIMIT_REACHED',
      data: { counter: 'exports', used: 5, limit: 10, overage: 2, remaining: 7, period: 'day', resets_at: '2026-03-05T00:00:00.000Z' },
    });
    expect((await counter(license.key, 'exports')).used).toBe(5);
  });

  it('counts one usage_id once when it is sent 8 times at once and again later, and answers each as the first', async () => {
    const license = await usedLicense();
    const send = () => usage({ license: license.key, counter: 'exports', amount: 3, usage_id: 'retry-me-0001' });

    const answers = [...(await Promise.all(Array.from({ length: 8 }, send))), await send(), await send()];

    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    expect(new Set(answers.map((answer) => JSON.stringify(answer.body))).size).toBe(1);
    expect(answers[0]!.body.data).toMatchObject({ used: 3, remaining: 9 });
    expect((await counter(license.key, 'exports')).used).toBe(3);
  });

  it('keeps usage_ids apart per license, and counts distinct ids racing on one counter exactly', async () => {
    const [first, second] = [await usedLicense(), await usedLicense()];
    await usage({ license: first.key, counter: 'exports', usage_id: 'shared-id-01' });
    expect((await usage({ license: second.key, counter: 'exports', usage_id: 'shared-id-01' })).body.data.used).toBe(1);

    const answers = await Promise.all(Array.from({ length: 14 }, (_, index) => usage({ license: first.key, counter: 'exports', usage_id: `distinct-${index}-id` })));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(11);
    expect(answers.filter((answer) => answer.body.message === 'USAGE_LIMIT_REACHED')).toHaveLength(3);
    expect((await counter(first.key, 'exports')).used).toBe(12);
  });

  it('answers a retried usage_id as the first time even once the counter is full', async () => {
    const license = await usedLicense();
    const first = await usage({ license: license.key, counter: 'exports', amount: 12, usage_id: 'fill-it-up-01' });
    expect(first.body.data.remaining).toBe(0);
    expect((await usage({ license: license.key, counter: 'exports', amount: 12, usage_id: 'fill-it-up-01' })).body).toEqual(first.body);
  });

  it('starts a fresh period at 0 without any job, when the clock passes midnight UTC', async () => {
    const license = await usedLicense(metered, { expires_at: new Date(clock.now().getTime() + 3 * 86400_000).toISOString() });
    await usage({ license: license.key, counter: 'exports', amount: 12 });
    expect((await usage({ license: license.key, counter: 'exports' })).body.message).toBe('USAGE_LIMIT_REACHED');

    const today = clock.now();
    clock.set(new Date('2026-03-05T00:00:00.000Z'));
    try {
      expect((await counter(license.key, 'exports')).used).toBe(0);
      const fresh = await usage({ license: license.key, counter: 'exports', amount: 2 });
      expect(fresh.body.data).toMatchObject({ used: 2, remaining: 10, resets_at: '2026-03-06T00:00:00.000Z' });
    } finally {
      clock.set(today);
    }
  });

  it.each<[UsagePeriod, UsagePeriod, string, string]>([
    ['day', 'week', 'a Monday', '2026-03-02T10:00:00.000Z'],
    ['day', 'month', 'the 1st', '2026-04-01T10:00:00.000Z'],
    ['week', 'month', 'a 1st that is a Monday', '2026-06-01T10:00:00.000Z'],
    ['month', 'year', 'January', '2027-01-20T10:00:00.000Z'],
  ])('starts again at 0 when the owner changes a %s counter to %s on %s, where both periods began together', async (from, to, _when, time) => {
    const today = clock.now();
    clock.set(new Date(time));
    try {
      const license = await usedLicense(metered, { usage_limits: { quota: { limit: 10, period: from, overage: 0 } } });
      expect((await usage({ license: license.key, counter: 'quota', amount: 4 })).body.data).toMatchObject({ used: 4, period: from });

      const changed = await manage('/license/update-usage-limits', { license_key: license.key, usage_limits: { quota: { limit: 10, period: to } } });
      expect(changed.body.data.usage.find((entry: { counter: string }) => entry.counter === 'quota')).toMatchObject({ used: 0, remaining: 10, period: to });
      expect((await usage({ license: license.key, counter: 'quota', amount: 3 })).body.data).toMatchObject({ used: 3, remaining: 7, period: to });
      expect((await usage({ license: license.key, counter: 'quota', amount: 1, usage_id: 'after-change-01' })).body.data).toMatchObject({ used: 4 });
    } finally {
      clock.set(today);
    }
  });

  it('lets a license counter override its subscription counter of the same name', async () => {
    const license = await usedLicense(metered, { usage_limits: { exports: { limit: 1, period: 'none', overage: 0 } } });
    expect((await usage({ license: license.key, counter: 'exports' })).body.data).toMatchObject({ used: 1, limit: 1, period: 'none', resets_at: null });
    expect((await usage({ license: license.key, counter: 'exports' })).body.message).toBe('USAGE_LIMIT_REACHED');
  });

  it('answers the /auth checks first, an unused license LICENSE_NOT_ACTIVATED and an unknown counter USAGE_COUNTER_UNKNOWN, changing nothing', async () => {
    const unused = await seedLicense(env.deps, metered);
    const paused = await usedLicense(metered, { status: 'paused' });
    const before = await scanAll(env.deps.table);
    expect((await usage({ license: unused.key, counter: 'exports' })).body.message).toBe('LICENSE_NOT_ACTIVATED');
    expect((await usage({ license: paused.key, counter: 'exports' })).body.message).toBe('LICENSE_NOT_ACTIVE');
    expect((await usage({ license: paused.key, counter: 'nope' })).body.message).toBe('LICENSE_NOT_ACTIVE');
    expect((await usage({ license: (await usedLicense()).key, counter: 'nope' })).body.message).toBe('USAGE_COUNTER_UNKNOWN');
    expect((await usage({ license: 'NO-SUCH-KEY', counter: 'exports' })).body.message).toBe('LICENSE_NOT_FOUND');
    const unusedAfter = (await scanAll(env.deps.table)).find((item) => item.key === unused.key);
    expect(unusedAfter).toEqual(before.find((item) => item.key === unused.key));
  });

  it('answers a counter named like what every object inherits (constructor) USAGE_COUNTER_UNKNOWN when no limit of that name applies, counting nothing', async () => {
    const license = await usedLicense();
    const before = await scanAll(env.deps.table);
    expect(await usage({ license: license.key, counter: 'constructor', amount: 1_000_000 })).toMatchObject({ status: 403, body: { message: 'USAGE_COUNTER_UNKNOWN' } });
    expect((await manage('/license/reset-usage', { license_key: license.key, counter: 'constructor' })).body).toEqual({
      error: 'counter: no usage limit of that name applies to the license',
      error_code: 'INVALID_INPUT',
    });
    expect(await scanAll(env.deps.table)).toEqual(before);
  });

  it('never binds a device: a new device on a locked license with a free seat is LICENSE_NOT_ACTIVATED', async () => {
    const license = await usedLicense(metered, { hwid_lock: true, hwid: 'pc-a', max_devices: 2 });
    expect((await usage({ license: license.key, counter: 'exports', hwid: 'pc-a' })).status).toBe(200);
    expect((await usage({ license: license.key, counter: 'exports', hwid: 'pc-b' })).body.message).toBe('LICENSE_NOT_ACTIVATED');
    expect((await licenses.get(env.deps.table, license.key, license.team_id))!.hwids).toEqual(['pc-a']);
  });

  it('answers malformed usage fields 400 Invalid usage request, after the nonce, writing nothing', async () => {
    const license = await usedLicense();
    const before = await scanAll(env.deps.table);
    for (const bad of [{ counter: 'Bad Name' }, { counter: 'exports', amount: '1' }, { counter: 'exports', amount: -1 }, { counter: 'exports', usage_id: 'has space!' }, { counter: 7 }]) {
      expect(await usage({ license: license.key, ...bad })).toMatchObject({ status: 400, body: { success: false, message: 'Invalid usage request' } });
    }
    expect((await usage({ license: license.key, counter: 'Bad Name', nonce: '!' })).body.message).toBe('Invalid nonce');
    expect(await scanAll(env.deps.table)).toEqual(before);
  });
});

describe('usage on the license record', () => {
  it('shows every counter that applies, and /license/reset-usage sets one or all of them to 0', async () => {
    const license = await usedLicense();
    await usage({ license: license.key, counter: 'exports', amount: 4 });
    await usage({ license: license.key, counter: 'api', amount: 40 });
    expect((await record(license.key)).usage.map(({ counter: name, used }: { counter: string; used: number }) => [name, used])).toEqual([['api', 40], ['exports', 4]]);

    const one = await manage('/license/reset-usage', { license_key: license.key, counter: 'exports' });
    expect(one.body.data.usage.map(({ used }: { used: number }) => used)).toEqual([40, 0]);
    const all = await manage('/license/reset-usage', { license_key: license.key });
    expect(all.body.data.usage.map(({ used }: { used: number }) => used)).toEqual([0, 0]);
    expect((await usage({ license: license.key, counter: 'exports', amount: 12 })).status).toBe(200);
  });

  it('answers a reset of a counter that does not apply 400 INVALID_INPUT, and a missing license 404', async () => {
    const license = await usedLicense();
    expect((await manage('/license/reset-usage', { license_key: license.key, counter: 'nope' })).body).toEqual({
      error: 'counter: no usage limit of that name applies to the license',
      error_code: 'INVALID_INPUT',
    });
    expect((await manage('/license/reset-usage', { license_key: 'NO-SUCH-KEY' })).body.error_code).toBe('LICENSE_NOT_FOUND');
  });

  it('replaces the license usage limits, refusing malformed ones with 400 and writing nothing', async () => {
    const license = await usedLicense();
    const limits = { seats: { limit: 3, period: 'week', overage: 1 } };
    const updated = await manage('/license/update-usage-limits', { license_key: license.key, usage_limits: limits });
    expect(updated.body.data.usage_limits).toEqual(limits);
    expect(updated.body.data.usage.map(({ counter: name }: { counter: string }) => name)).toEqual(['api', 'exports', 'seats']);
    expect(updated.body.data.usage[2]).toMatchObject({ resets_at: '2026-03-09T00:00:00.000Z' });

    const before = await scanAll(env.deps.table);
    const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`c${index}`, { limit: 1, period: 'day' }]));
    for (const bad of [
      { 'Bad Name': { limit: 1, period: 'day' } },
      { exports: { limit: -1, period: 'day' } },
      { exports: { limit: 1, period: 'hour' } },
      { exports: { limit: 1, period: 'day', overage: 1.5 } },
      { exports: { limit: 1, period: 'day', extra: true } },
      tooMany,
      [],
    ]) {
      const answer = await manage('/license/update-usage-limits', { license_key: license.key, usage_limits: bad });
      expect(answer.status).toBe(400);
      expect(answer.body.error_code).toBe('INVALID_INPUT');
    }
    expect(await scanAll(env.deps.table)).toEqual(before);
  });
});

describe('counters named like what every object inherits', () => {
  const limits = { constructor: { limit: 5, period: 'day', overage: 0 }, prototype: { limit: 2, period: 'none', overage: 1 } };
  const oneDay = { duration_unit: 'days', duration_value: 1 };

  it('takes constructor and prototype as counter names on every route that sets usage limits, stores them as sent and counts them', async () => {
    const tier = await manage('/subscription/create', { app_id: owner.app_id, name: 'Named', level: 1, usage_limits: limits });
    expect(tier.status).toBe(200);
    expect(tier.body.data.usage_limits).toEqual(limits);
    const base = { ...oneDay, app_id: owner.app_id, subscription_id: tier.body.data.subscription_id };
    const edited = await manage('/subscription/edit', { subscription_id: base.subscription_id, usage_limits: { constructor: limits.constructor } });
    expect(edited.body.data.usage_limits).toEqual({ constructor: limits.constructor });

    const single = await manage('/license/create', { ...base, usage_limits: limits });
    expect(single.status).toBe(200);
    expect(single.body.data.usage_limits).toEqual(limits);
    const bulk = await manage('/license/create-bulk', { ...base, key_amount: 2, usage_limits: limits });
    expect(bulk.status).toBe(200);
    expect(bulk.body.data.map((entry: { usage_limits: unknown }) => entry.usage_limits)).toEqual([limits, limits]);
    const plain = await usedLicense();
    const updated = await manage('/license/update-usage-limits', { license_key: plain.key, usage_limits: limits });
    expect(updated.status).toBe(200);
    expect((await record(plain.key)).usage_limits).toEqual(limits);

    expect((await usage({ license: plain.key, counter: 'constructor', amount: 5 })).body.data).toMatchObject({ counter: 'constructor', used: 5, remaining: 0 });
    expect((await usage({ license: plain.key, counter: 'constructor' })).body.message).toBe('USAGE_LIMIT_REACHED');
    expect((await usage({ license: plain.key, counter: 'prototype', amount: 3, usage_id: 'proto-count-01' })).body.data).toMatchObject({ used: 3, remaining: 0 });
    expect((await record(plain.key)).usage.map(({ counter: name, used }: { counter: string; used: number }) => [name, used])).toEqual([
      ['api', 0], ['constructor', 5], ['exports', 0], ['prototype', 3],
    ]);
    const reset = await manage('/license/reset-usage', { license_key: plain.key, counter: 'constructor' });
    expect(reset.body.data.usage.find((entry: { counter: string }) => entry.counter === 'constructor').used).toBe(0);
  });

  it('refuses a __proto__ counter with 400 INVALID_INPUT on every route that sets usage limits, instead of dropping it unseen, and writes nothing', async () => {
    const license = await usedLicense();
    const limitsText = '{"__proto__":{"limit":1,"period":"day"},"exports":{"limit":3,"period":"day"}}';
    const withProto = (body: Record<string, unknown>) => `${JSON.stringify(body).slice(0, -1)},"usage_limits":${limitsText}}`;
    const base = { ...oneDay, app_id: owner.app_id, subscription_id: metered.subscription_id };
    const before = await scanAll(env.deps.table);
    for (const [path, body] of [
      ['/license/update-usage-limits', { license_key: license.key }],
      ['/license/create', base],
      ['/license/create-bulk', { ...base, key_amount: 1 }],
      ['/subscription/create', { app_id: owner.app_id, name: 'Proto', level: 1 }],
      ['/subscription/edit', { subscription_id: metered.subscription_id }],
    ] as const) {
      expect({ path, ...(await env.post(path, withProto(body), owner.auth)) }).toMatchObject({
        path,
        status: 400,
        body: { error: 'usage_limits: must not use the key "__proto__"', error_code: 'INVALID_INPUT' },
      });
    }
    expect(await scanAll(env.deps.table)).toEqual(before);
  });
});

describe('entitlements', () => {
  it('shows features in /auth data, the license record and the offline token, as the sorted union', async () => {
    const license = await seedLicense(env.deps, metered, { features: ['sync', 'beta'] });
    const answer = await env.post('/auth', { app_id: owner.app_id, license: license.key, offline_token: true });
    expect(answer.body.data.features).toEqual(['beta', 'reports', 'sync']);
    expect(decodeJwt(answer.body.data.offline_token).features).toEqual(['beta', 'reports', 'sync']);
    expect(await record(license.key)).toMatchObject({ features: ['sync', 'beta'], effective_features: ['beta', 'reports', 'sync'] });

    const updated = await manage('/license/update-features', { license_key: license.key, features: ['zeta', 'alpha', 'alpha'] });
    expect(updated.body.data).toMatchObject({ features: ['alpha', 'zeta'], effective_features: ['alpha', 'reports', 'zeta'] });
  });

  it('leaves /auth data as before when a license has no features', async () => {
    const plain = await seedSubscription(env.deps, owner);
    const answer = await env.post('/auth', { app_id: owner.app_id, license: (await seedLicense(env.deps, plain)).key });
    expect(Object.keys(answer.body.data)).toHaveLength(13);
  });

  it('takes features, usage limits and grace on subscriptions and licenses when created, and refuses malformed ones with 400', async () => {
    const created = await manage('/subscription/create', {
      app_id: owner.app_id, name: 'Metered', level: 3, features: ['b', 'a'], usage_limits: { api: { limit: 5, period: 'year' } }, grace_seconds: 3600,
    });
    expect(created.body.data).toMatchObject({ features: ['a', 'b'], usage_limits: { api: { limit: 5, period: 'year', overage: 0 } }, grace_seconds: 3600 });
    const edited = await manage('/subscription/edit', { subscription_id: created.body.data.subscription_id, grace_seconds: 0, features: [] });
    expect(edited.body.data).toMatchObject({ features: [], grace_seconds: 0 });
    const license = await manage('/license/create', {
      app_id: owner.app_id, subscription_id: created.body.data.subscription_id, duration_unit: 'days', duration_value: 1, features: ['x'], usage_limits: { api: { limit: 9, period: 'none', overage: 1 } },
    });
    expect(license.body.data).toMatchObject({ features: ['x'], effective_features: ['x'], usage: [{ counter: 'api', limit: 9, overage: 1, used: 0, remaining: 10 }] });
    const bulk = await manage('/license/create-bulk', {
      key_amount: 2, app_id: owner.app_id, subscription_id: created.body.data.subscription_id, duration_unit: 'days', duration_value: 1, features: ['y'],
    });
    expect(bulk.body.data.map((entry: { features: string[] }) => entry.features)).toEqual([['y'], ['y']]);

    const before = await scanAll(env.deps.table);
    const base = { app_id: owner.app_id, name: 'Bad', level: 1 };
    for (const body of [
      { ...base, features: ['UPPER'] },
      { ...base, features: Array.from({ length: 51 }, (_, index) => `f${index}`) },
      { ...base, features: 'sync' },
      { ...base, grace_seconds: 2_592_001 },
      { ...base, grace_seconds: -1 },
      { ...base, usage_limits: { api: { limit: 1 } } },
    ]) {
      expect((await manage('/subscription/create', body)).body.error_code).toBe('INVALID_INPUT');
    }
    expect((await manage('/subscription/edit', { subscription_id: created.body.data.subscription_id, grace_seconds: 'long' })).body.error_code).toBe('INVALID_INPUT');
    expect((await manage('/license/update-features', { license_key: 'NO-SUCH-KEY', features: ['-x'] })).body.error_code).toBe('INVALID_INPUT');
    expect(await scanAll(env.deps.table)).toEqual(before);
  });
});

describe('grace periods', () => {
  it('authenticates a used license within grace with grace_until, bounds its offline token by it, then answers LICENSE_EXPIRED', async () => {
    const graceful = await seedSubscription(env.deps, owner, { grace_seconds: 3600 });
    const expiresAt = new Date(clock.now().getTime() - 600_000).toISOString();
    const license = await seedLicense(env.deps, graceful, { first_used_at: '2026-03-01T00:00:00.000Z', expires_at: expiresAt });
    const graceUntil = new Date(Date.parse(expiresAt) + 3600_000).toISOString();

    const inGrace = await env.post('/auth', { app_id: owner.app_id, license: license.key, offline_token: true });
    expect(inGrace.body).toMatchObject({ success: true, message: 'LICENSE_VERIFIED_USED_AND_UNLOCKED_KEY', data: { grace_until: graceUntil } });
    expect(decodeJwt(inGrace.body.data.offline_token).exp).toBe(Date.parse(graceUntil) / 1000);

    const now = clock.now();
    clock.set(new Date(graceUntil));
    try {
      const after = await env.post('/auth', { app_id: owner.app_id, license: license.key });
      expect(after.body).toEqual({ success: false, message: 'LICENSE_EXPIRED', data: { expires_at: expiresAt } });
    } finally {
      clock.set(now);
    }
  });

  it('gives no grace_until before expiry and no grace without grace_seconds', async () => {
    const graceful = await seedSubscription(env.deps, owner, { grace_seconds: 3600 });
    const live = await seedLicense(env.deps, graceful, { first_used_at: '2026-03-01T00:00:00.000Z', expires_at: inADay() });
    expect((await env.post('/auth', { app_id: owner.app_id, license: live.key })).body.data).not.toHaveProperty('grace_until');
    const plain = await seedSubscription(env.deps, owner);
    const lapsed = await seedLicense(env.deps, plain, { first_used_at: '2026-03-01T00:00:00.000Z', expires_at: new Date(clock.now().getTime() - 1000).toISOString() });
    expect((await env.post('/auth', { app_id: owner.app_id, license: lapsed.key })).body.message).toBe('LICENSE_EXPIRED');
  });

  it('still answers LICENSE_NOT_ACTIVE before grace is looked at, and lets /usage count in grace', async () => {
    const graceful = await seedSubscription(env.deps, owner, { grace_seconds: 3600, usage_limits: { api: { limit: 2, period: 'day', overage: 0 } } });
    const lapsed = { first_used_at: '2026-03-01T00:00:00.000Z', expires_at: new Date(clock.now().getTime() - 1000).toISOString() };
    const paused = await seedLicense(env.deps, graceful, { ...lapsed, status: 'paused' });
    expect((await env.post('/auth', { app_id: owner.app_id, license: paused.key })).body.message).toBe('LICENSE_NOT_ACTIVE');
    const inGrace = await seedLicense(env.deps, graceful, lapsed);
    expect((await usage({ license: inGrace.key, counter: 'api' })).body.message).toBe('USAGE_RECORDED');
  });
});

describe('usage on a floating license', () => {
  it('counts from a device holding a live lease, and answers LICENSE_NOT_ACTIVATED once its seat is released', async () => {
    const license = await usedLicense(metered, { hwid_lock: true, lease_seconds: 3600, max_devices: 2 });
    expect((await env.post('/auth', { app_id: owner.app_id, license: license.key, hwid: 'float-a' })).status).toBe(200);
    expect((await usage({ license: license.key, counter: 'exports', hwid: 'float-a' })).body.message).toBe('USAGE_RECORDED');
    expect((await usage({ license: license.key, counter: 'exports', hwid: 'float-b' })).body.message).toBe('LICENSE_NOT_ACTIVATED');
    expect((await usage({ license: license.key, counter: 'exports' })).body.message).toBe('HWID_NOT_PROVIDED');
    expect((await env.post('/release', { app_id: owner.app_id, license: license.key, hwid: 'float-a' })).body.message).toBe('SEAT_RELEASED');
    expect((await usage({ license: license.key, counter: 'exports', hwid: 'float-a' })).body.message).toBe('LICENSE_NOT_ACTIVATED');
  });
});
