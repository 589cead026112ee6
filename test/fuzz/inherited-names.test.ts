import * as fc from 'fast-check';
import { keys } from '#data/keys';
import type { Subscription } from '#data/model/subscription';
import { startTestServer, type HttpResult, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { scanAll } from '../support/invariants';
import { createOwner, type Owner } from '../support/owners';

/**
 * Property-based: names every JavaScript object has, sent as HWIDs and as map
 * keys through every route that takes an HWID or a map, client and management,
 * through the local server (docs/security.md#keys-chosen-by-clients-and-owners).
 * Never a 5xx: either the documented 400 with nothing written, or a record that
 * reads back exactly what was sent. Every name is tried by itself first
 * (fast-check's `examples`), then fast-check mixes them; runs are few and
 * fixed, so a slow machine takes longer, never checks less.
 */
const inherited = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
];
/** As counter names: the lower-case ones pass the name rule (docs/management-api.md#entitlements-and-usage), the others break it. */
const counterNames = [...inherited, 'tostring', 'valueof', 'hasownproperty'];
const nameRule = /^[a-z0-9][a-z0-9._:-]{0,63}$/;

const randomRuns = 8;
const each = (names: readonly string[]) => names.map((name) => [name] as [string]);

let env: TestServer;
let owner: Owner;
let tier: Subscription;

beforeAll(async () => {
  env = await startTestServer({ config: { cacheTtlSeconds: 0 } });
  owner = await createOwner(env.deps);
  tier = await seedSubscription(env.deps, owner, { usage_limits: { constructor: { limit: 5, period: 'day' as const, overage: 0 } } });
}, 60_000);
afterAll(() => env.close());

const manage = (path: string, body: unknown, as: Owner = owner) => env.post(path, body, as.auth);
const client = (path: string, body: Record<string, unknown>) => env.post(path, { app_id: owner.app_id, ...body });
const record = async (key: string) => (await manage('/license/get', { license_key: key })).body.data;
/** A map with exactly these own entries, `__proto__` included (an object literal would set the prototype instead). */
const mapOf = <T>(entries: [string, T][]): Record<string, T> => Object.fromEntries(entries);

/** The table but the daily counters, which failed /auth attempts move by design on a timer. */
async function snapshot(): Promise<Record<string, unknown>[]> {
  const counters = keys.dailyStatsOfApp(owner.app_id);
  const items = (await scanAll(env.deps.table)).filter((item) => item.pk !== counters);
  return items.sort((a, b) => `${a.pk}${a.sk}`.localeCompare(`${b.pk}${b.sk}`));
}

function expectNoServerError(answer: HttpResult) {
  expect(answer.status).toBeLessThan(500);
}

/** The documented 400 of a management route, naming `field`, with `detail` when given. */
function expectRefused(answer: HttpResult, field: string, detail?: string) {
  expect(answer.status).toBe(400);
  expect(answer.body.error_code).toBe('INVALID_INPUT');
  expect(answer.body.error).toMatch(new RegExp(`^${field.replace('.', '\\.')}[.:]`));
  if (detail !== undefined) expect(answer.body.error).toBe(`${field}: ${detail}`);
}

const protoRefusal = 'must not use the key "__proto__"';
const floatingOrLocked = fc.constantFrom('floating', 'locked');
const licenseOf = (kind: string) =>
  seedLicense(env.deps, tier, { hwid_lock: true, max_devices: 2, ...(kind === 'floating' ? { lease_seconds: 600 } : {}) });

describe('an HWID named like what every object inherits', () => {
  it('on the client routes: takes, renews, counts with and gives up a device like any other HWID; __proto__ is 400 everywhere', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...inherited), floatingOrLocked, async (hwid, kind) => {
        const license = await licenseOf(kind);
        const body = { license: license.key, hwid };
        if (hwid === '__proto__') {
          const before = await snapshot();
          for (const path of ['/auth', '/usage', '/release', '/reset-hwid']) {
            expect((await client(path, { ...body, counter: 'constructor' })).body).toEqual({ success: false, message: 'HWID must not be "__proto__"' });
          }
          expect(await snapshot()).toEqual(before);
          return;
        }
        const taken = await client('/auth', { ...body, offline_token: true });
        expectNoServerError(taken);
        expect(taken.status).toBe(200);
        expect(taken.body.data.hwids).toEqual([hwid]);
        const renewed = await client('/auth', body);
        expect(renewed.status).toBe(200);
        const stored = await record(license.key);
        expect(stored.hwids).toEqual([hwid]);
        if (kind === 'floating') expect(stored.leases).toEqual([{ hwid, expires_at: renewed.body.data.lease_expires_at, borrowed: false }]);
        expect((await client('/usage', { ...body, counter: 'constructor' })).body.data).toMatchObject({ counter: 'constructor', used: 1 });
        const given = await client(kind === 'floating' ? '/release' : '/reset-hwid', body);
        expect(given.status).toBe(200);
        expect(given.body.data.hwids).toEqual([]);
        expect((await record(license.key)).hwids).toEqual([]);
      }),
      { numRuns: randomRuns, examples: inherited.flatMap((hwid) => [[hwid, 'floating'] as [string, string], [hwid, 'locked'] as [string, string]]) },
    );
  }, 300_000);

  it('on /license-file and /license-file/return: a file made, listed and returned like any other HWID\'s; __proto__ is 400 in a body and in a code', async () => {
    const codeOf = (prefix: string, fields: Record<string, unknown>) => `${prefix}${Buffer.from(JSON.stringify(fields)).toString('base64url')}`;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...inherited), floatingOrLocked, async (hwid, kind) => {
        const license = await licenseOf(kind);
        if (hwid === '__proto__') {
          const before = await snapshot();
          expect((await client('/license-file', { license: license.key, hwid })).body).toEqual({ success: false, message: 'HWID must not be "__proto__"' });
          const request = codeOf('lfr1.', { app_id: owner.app_id, license: license.key, hwid, nonce: 'inherited-nonce-1' });
          expect((await env.post('/license-file', { request })).body).toEqual({ success: false, message: 'Invalid activation request' });
          const returned = codeOf('lfx1.', { app_id: owner.app_id, license: license.key, hwid, jti: 'any-jti' });
          expect((await env.post('/license-file/return', { request: returned })).body).toEqual({ success: false, message: 'Invalid return code' });
          expect(await snapshot()).toEqual(before);
          return;
        }
        const made = await client('/license-file', { license: license.key, hwid, lifetime_seconds: 3600 });
        expectNoServerError(made);
        expect(made.status).toBe(200);
        const [file] = (await record(license.key)).files;
        expect(file).toMatchObject({ hwid, air_gapped: false });
        const returned = await env.post('/license-file/return', { request: codeOf('lfx1.', { app_id: owner.app_id, license: license.key, hwid, jti: file.jti }) });
        expect([returned.status, returned.body.message]).toEqual([200, 'LICENSE_FILE_RETURNED']);
        expect(await record(license.key)).toMatchObject({ hwids: [], files: [] });
      }),
      { numRuns: randomRuns, examples: inherited.flatMap((hwid) => [[hwid, 'floating'] as [string, string], [hwid, 'locked'] as [string, string]]) },
    );
  }, 300_000);

  it('as the jti of a return code: Invalid return code, nothing written', async () => {
    const license = await licenseOf('locked');
    expect((await client('/license-file', { license: license.key, hwid: 'jti-pc' })).status).toBe(200);
    const before = await snapshot();
    for (const jti of inherited) {
      const request = `lfx1.${Buffer.from(JSON.stringify({ app_id: owner.app_id, license: license.key, hwid: 'jti-pc', jti })).toString('base64url')}`;
      expect((await env.post('/license-file/return', { request })).body).toEqual({ success: false, message: 'Invalid return code' });
    }
    expect(await snapshot()).toEqual(before);
  });

  it('on /trial: starts and resumes a trial like any other HWID, its claim read back as sent; __proto__ is 400 Invalid hwid', async () => {
    const configured = await manage('/app/settings', { app_id: owner.app_id, trial: { subscription_id: tier.subscription_id, duration_seconds: 3600, max_devices: 2, per_ip_per_day: 1000 } });
    expect(configured.status).toBe(200);
    for (const hwid of inherited) {
      if (hwid === '__proto__') {
        const before = await snapshot();
        expect(await client('/trial', { hwid })).toEqual(expect.objectContaining({ status: 400, body: { success: false, message: 'Invalid hwid' } }));
        expect(await snapshot()).toEqual(before);
        continue;
      }
      const started = await client('/trial', { hwid });
      expectNoServerError(started);
      expect(started.body.message).toBe('TRIAL_STARTED');
      expect(started.body.data.hwids).toEqual([hwid]);
      const resumed = await client('/trial', { hwid });
      expect([resumed.body.message, resumed.body.data.license]).toEqual(['TRIAL_RESUMED', started.body.data.license]);
      expect((await record(started.body.data.license)).hwids).toEqual([hwid]);
      const claims = (await snapshot()).filter((item) => item.pk === `APP#${owner.app_id}` && item.sk === keys.trialClaim(owner.app_id, hwid).sk);
      expect(claims.map((claim) => [claim.hwid, claim.license_key])).toEqual([[hwid, started.body.data.license]]);
    }
  }, 300_000);

  it('on /hwid/edit and /hwid/remove: binds and removes it like any other; __proto__ is 400 INVALID_INPUT with nothing written', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...inherited), floatingOrLocked, async (hwid, kind) => {
        const license = await licenseOf(kind);
        if (hwid === '__proto__') {
          const before = await snapshot();
          for (const path of ['/hwid/edit', '/hwid/remove']) expectRefused(await manage(path, { license_key: license.key, hwid }), 'hwid', 'must not be "__proto__"');
          expect(await snapshot()).toEqual(before);
          return;
        }
        const edited = await manage('/hwid/edit', { license_key: license.key, hwid });
        expectNoServerError(edited);
        expect(edited.body.data.hwids).toEqual([hwid]);
        if (kind === 'floating') expect(edited.body.data.leases.map((lease: { hwid: string }) => lease.hwid)).toEqual([hwid]);
        expect((await record(license.key)).hwids).toEqual([hwid]);
        expect((await manage('/hwid/remove', { license_key: license.key, hwid })).body.data.hwids).toEqual([]);
      }),
      { numRuns: randomRuns, examples: inherited.map((hwid) => [hwid, 'floating'] as [string, string]) },
    );
  }, 300_000);

  it('on /blacklist/add and /blacklist/delete: is an entry like any other, which /auth then refuses', async () => {
    const lister = await createOwner(env.deps);
    const listerTier = await seedSubscription(env.deps, lister);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...inherited), async (value) => {
        const entry = { app_id: lister.app_id, type: 'hwid', value };
        const added = await manage('/blacklist/add', { ...entry, reason: 'fuzz' }, lister);
        expectNoServerError(added);
        expect(added.status).toBe(200);
        const listed = (await manage('/blacklist/get-bulk', { app_id: lister.app_id, type: 'hwid' }, lister)).body.data;
        expect(listed.map((listedEntry: { value: string }) => listedEntry.value)).toEqual([value]);
        const license = await seedLicense(env.deps, listerTier);
        const refused = await env.post('/auth', { app_id: lister.app_id, license: license.key, hwid: value });
        expect(refused.body.message).toBe(value === '__proto__' ? 'HWID must not be "__proto__"' : 'HWID_BLACKLISTED');
        expect((await manage('/blacklist/delete', entry, lister)).status).toBe(200);
        expect((await manage('/blacklist/get-bulk', { app_id: lister.app_id, type: 'hwid' }, lister)).body.data).toEqual([]);
      }),
      { numRuns: randomRuns, examples: each(inherited) },
    );
  }, 300_000);
});

describe('usage limits keyed by names like what every object inherits', () => {
  const limitOf = fc.record({ limit: fc.integer({ min: 1, max: 1000 }), period: fc.constantFrom('day', 'week', 'month', 'year', 'none'), overage: fc.nat(10) });
  const limitsOf = fc.uniqueArray(fc.tuple(fc.constantFrom(...counterNames), limitOf), { minLength: 1, maxLength: 4, selector: ([name]) => name });
  const routes = ['/license/create', '/license/create-bulk', '/license/update-usage-limits', '/subscription/create', '/subscription/edit'] as const;
  const examples = counterNames.map((name) => [[[name, { limit: 3, period: 'day', overage: 1 }]], routes[counterNames.indexOf(name) % routes.length]!]);

  interface Sent {
    answer: HttpResult;
    /** The limits as stored, read again (one per license a bulk create made). */
    stored: () => Promise<unknown>;
    /** The license they are on, in use, when the route changed one. */
    key?: string;
  }

  /** Whatever the route needs beforehand (a license in use, a subscription), then a sender of the limits to it. */
  async function routeTo(route: (typeof routes)[number]): Promise<(limits: Record<string, unknown>) => Promise<Sent>> {
    const create = { app_id: owner.app_id, subscription_id: tier.subscription_id, duration_unit: 'days', duration_value: 1 };
    const storedLimits = async (key: string) => (await record(key)).usage_limits;
    switch (route) {
      case '/license/create':
        return async (limits) => {
          const answer = await manage(route, { ...create, usage_limits: limits });
          return { answer, stored: () => storedLimits(answer.body.data.key) };
        };
      case '/license/create-bulk':
        return async (limits) => {
          const answer = await manage(route, { ...create, key_amount: 2, usage_limits: limits });
          return { answer, stored: () => Promise.all(answer.body.data.map((made: { key: string }) => storedLimits(made.key))) };
        };
      case '/license/update-usage-limits': {
        const license = await seedLicense(env.deps, tier, { first_used_at: new Date().toISOString(), expires_at: new Date(Date.now() + 86400_000).toISOString() });
        return async (limits) => ({
          answer: await manage(route, { license_key: license.key, usage_limits: limits }),
          stored: () => storedLimits(license.key),
          key: license.key,
        });
      }
      case '/subscription/create':
      case '/subscription/edit': {
        const edited = await seedSubscription(env.deps, owner);
        const subscriptionLimits = async (id: string) =>
          (await manage('/subscription/get-bulk', { app_id: owner.app_id })).body.data.find((found: { subscription_id: string }) => found.subscription_id === id).usage_limits;
        return async (limits) => {
          const body = route === '/subscription/create' ? { app_id: owner.app_id, name: 'Fuzz', level: 1, usage_limits: limits } : { subscription_id: edited.subscription_id, usage_limits: limits };
          const answer = await manage(route, body);
          return { answer, stored: () => subscriptionLimits(answer.body.data.subscription_id) };
        };
      }
    }
  }

  it('are stored and read back as sent, counted by /usage and reset by name; __proto__ and names breaking the name rule are 400', async () => {
    await fc.assert(
      fc.asyncProperty(limitsOf, fc.constantFrom(...routes), async (entries, route) => {
        const limits = mapOf(entries);
        const send = await routeTo(route);
        const before = await snapshot();
        const { answer, stored, key } = await send(limits);
        expectNoServerError(answer);
        const names = entries.map(([name]) => name);
        if (names.includes('__proto__')) {
          expectRefused(answer, 'usage_limits', protoRefusal);
        } else if (names.some((name) => !nameRule.test(name))) {
          expectRefused(answer, 'usage_limits');
        } else {
          expect(answer.status).toBe(200);
          expect(await stored()).toEqual(route === '/license/create-bulk' ? [limits, limits] : limits);
          if (route === '/license/update-usage-limits') {
            for (const [name, limit] of entries) {
              expect((await client('/usage', { license: key, counter: name })).body.data).toMatchObject({ counter: name, used: 1, limit: limit.limit });
              const reset = await manage('/license/reset-usage', { license_key: key, counter: name });
              expect(reset.body.data.usage.find((counter: { counter: string }) => counter.counter === name).used).toBe(0);
            }
          }
          return;
        }
        expect(await snapshot()).toEqual(before);
      }),
      { numRuns: randomRuns, examples: examples as [[string, { limit: number; period: string; overage: number }][], (typeof routes)[number]][] },
    );
  }, 300_000);

  it('a counter /usage or /license/reset-usage names that no limit has is USAGE_COUNTER_UNKNOWN or 400, counting nothing', async () => {
    const license = await seedLicense(env.deps, tier, { first_used_at: new Date().toISOString(), expires_at: new Date(Date.now() + 86400_000).toISOString() });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...counterNames.filter((name) => name !== 'constructor')), async (counter) => {
        const before = await snapshot();
        const counted = await client('/usage', { license: license.key, counter });
        expect(counted.body).toEqual(
          nameRule.test(counter) ? { success: false, message: 'USAGE_COUNTER_UNKNOWN' } : { success: false, message: 'Invalid usage request' },
        );
        const reset = await manage('/license/reset-usage', { license_key: license.key, counter });
        expectRefused(reset, 'counter');
        expect(await snapshot()).toEqual(before);
      }),
      { numRuns: randomRuns, examples: each(counterNames.filter((name) => name !== 'constructor')) },
    );
  }, 300_000);
});

describe('metadata and Stripe prices keyed by names like what every object inherits', () => {
  const leaf = fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.string({ maxLength: 8 }), fc.boolean());
  const keysOf = fc.constantFrom(...inherited, 'plain', 'order');
  const metadataOf = fc
    .uniqueArray(fc.tuple(keysOf, fc.oneof(leaf, fc.uniqueArray(fc.tuple(keysOf, leaf), { maxLength: 3, selector: ([key]) => key }).map(mapOf))), {
      minLength: 1,
      maxLength: 4,
      selector: ([key]) => key,
    })
    .map(mapOf);
  const refusedInMetadata = ['__proto__', 'constructor', 'prototype'];
  /** The refused keys a metadata object holds at any depth. */
  const refusedKeysOf = (metadata: Record<string, unknown>): string[] =>
    Object.entries(metadata).flatMap(([key, value]) => [
      ...(refusedInMetadata.includes(key) ? [key] : []),
      ...(typeof value === 'object' && value !== null ? refusedKeysOf(value as Record<string, unknown>) : []),
    ]);

  it('metadata on /license/create and /license/update-metadata reads back as sent; __proto__, constructor and prototype at any depth are 400', async () => {
    await fc.assert(
      fc.asyncProperty(metadataOf, fc.constantFrom('/license/create', '/license/update-metadata'), async (metadata, route) => {
        const license = await seedLicense(env.deps, tier);
        const before = await snapshot();
        const answer =
          route === '/license/create'
            ? await manage(route, { app_id: owner.app_id, subscription_id: tier.subscription_id, duration_unit: 'days', duration_value: 1, metadata })
            : await manage(route, { license_key: license.key, metadata });
        expectNoServerError(answer);
        const refused = refusedKeysOf(metadata);
        if (refused.length === 0) {
          expect(answer.status).toBe(200);
          expect((await record(answer.body.data.key)).metadata).toEqual(metadata);
          return;
        }
        expectRefused(answer, 'metadata');
        expect(refused).toContain(/^metadata: must not use the key "(.+)"$/.exec(answer.body.error)![1]);
        expect(await snapshot()).toEqual(before);
      }),
      { numRuns: randomRuns, examples: inherited.map((key) => [mapOf([[key, 1]]), key.length % 2 === 0 ? '/license/create' : '/license/update-metadata'] as [Record<string, unknown>, string]) },
    );
  }, 300_000);

  it('a customer email on /license/create and /license/update-email reads back lower-cased, whatever name it has before the @; the bare name is 400', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...inherited), fc.constantFrom('/license/create', '/license/update-email'), async (name, route) => {
        const license = await seedLicense(env.deps, tier);
        const send = (email: string) =>
          route === '/license/create'
            ? manage(route, { app_id: owner.app_id, subscription_id: tier.subscription_id, duration_unit: 'days', duration_value: 1, email })
            : manage(route, { license_key: license.key, email });
        const before = await snapshot();
        const bare = await send(name);
        expectRefused(bare, 'email');
        expect(await snapshot()).toEqual(before);
        const answer = await send(`${name}@Example.com`);
        expectNoServerError(answer);
        expect(answer.status).toBe(200);
        expect((await record(answer.body.data.key)).email).toBe(`${name.toLowerCase()}@example.com`);
      }),
      { numRuns: randomRuns, examples: inherited.map((name, index) => [name, index % 2 === 0 ? '/license/create' : '/license/update-email'] as [string, string]) },
    );
  }, 300_000);

  it('prices on /integration/stripe/set read back as sent; a key that is no price id is 400, __proto__ as documented', async () => {
    const seller = await createOwner(env.deps);
    const sellerTier = await seedSubscription(env.deps, seller);
    const mapping = { subscription_id: sellerTier.subscription_id, duration_unit: 'months', duration_value: 1 };
    const secrets = { webhook_secret: 'whsec_inheritednamestest0123456789', api_key: 'rk_test_inheritednamestest0123456789' };
    expect((await manage('/integration/stripe/set', { app_id: seller.app_id, ...secrets, prices: {} }, seller)).status).toBe(200);
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.constantFrom(...inherited, 'price_1Basic', 'price_2Pro'), { maxLength: 3 }), async (ids) => {
        const prices = mapOf(ids.map((id) => [id, mapping]));
        const before = await snapshot();
        const answer = await manage('/integration/stripe/set', { app_id: seller.app_id, prices }, seller);
        expectNoServerError(answer);
        if (ids.every((id) => id.startsWith('price_'))) {
          expect(answer.status).toBe(200);
          expect((await manage('/integration/stripe/get', { app_id: seller.app_id }, seller)).body.data.prices).toEqual(prices);
          return;
        }
        if (ids.includes('__proto__')) expectRefused(answer, 'prices', protoRefusal);
        else expectRefused(answer, 'prices');
        expect(await snapshot()).toEqual(before);
      }),
      { numRuns: randomRuns, examples: inherited.map((id) => [[id, 'price_1Basic']] as [string[]]) },
    );
  }, 300_000);
});
