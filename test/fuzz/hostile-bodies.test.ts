import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import * as fc from 'fast-check';
import * as z from 'zod/mini';
import { keys } from '#data/keys';
import { contracts, isClientContract } from '../../functions/openapi/contracts';
import { routes, sideOf, type RoutePath } from '../../functions/routes';
import { startTestServer, type HttpResult, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';

/**
 * Property-based fuzzing of every route through the local HTTP server. Whatever
 * arrives, the answer is a 4xx in the route's documented body shape (never a 5xx,
 * never a stack trace) and no stored item changes.
 */
type FieldType = 'uuid' | 'string' | 'integer' | 'boolean' | 'strings' | 'object';

/** The fields each route reads (docs/client-api.md, docs/management-api.md), so hostile values land where the code looks. */
const fields: Record<RoutePath, Record<string, FieldType>> = {
  '/auth': { app_id: 'uuid', license: 'string', username: 'string', password: 'string', hwid: 'string', nonce: 'string', offline_token: 'boolean', borrow_seconds: 'integer' },
  '/register': { app_id: 'uuid', license: 'string', username: 'string', password: 'string', nonce: 'string' },
  '/reset-hwid': { app_id: 'uuid', license: 'string', username: 'string', password: 'string', hwid: 'string', nonce: 'string' },
  '/release': { app_id: 'uuid', license: 'string', username: 'string', password: 'string', hwid: 'string', nonce: 'string' },
  '/usage': { app_id: 'uuid', license: 'string', username: 'string', password: 'string', hwid: 'string', counter: 'string', amount: 'integer', usage_id: 'string', nonce: 'string' },
  '/license-file': {
    app_id: 'uuid', license: 'string', username: 'string', password: 'string', hwid: 'string', nonce: 'string', lifetime_seconds: 'integer',
    encrypt: 'boolean', request: 'string',
  },
  '/license-file/return': { request: 'string', app_id: 'uuid', nonce: 'string' },
  '/trial': { app_id: 'uuid', hwid: 'string', nonce: 'string' },
  '/license/create': {
    app_id: 'uuid', subscription_id: 'uuid', duration_unit: 'string', duration_value: 'integer', hwid_lock: 'boolean',
    tags: 'strings', metadata: 'object', username: 'string', password: 'string', license_key: 'string', max_devices: 'integer',
    lease_seconds: 'integer', features: 'strings', usage_limits: 'object', email: 'string',
  },
  '/license/create-bulk': {
    key_amount: 'integer', app_id: 'uuid', subscription_id: 'uuid', duration_unit: 'string', duration_value: 'integer',
    hwid_lock: 'boolean', tags: 'strings', max_devices: 'integer', lease_seconds: 'integer', features: 'strings', usage_limits: 'object', email: 'string',
  },
  '/license/extend': { license_key: 'string', extend_seconds: 'integer' },
  '/license/extend-bulk': { license_keys: 'strings', extend_seconds: 'integer', request_id: 'string' },
  '/license/delete': { license_key: 'string' },
  '/license/delete-bulk': { license_keys: 'strings' },
  '/license/get': { license_key: 'string' },
  '/license/get-bulk': {
    app_id: 'uuid', status: 'string', subscription_id: 'uuid', tag: 'string', per_page: 'integer', sort_field: 'string',
    sort_order: 'string', cursor: 'string', expired: 'boolean', unused: 'boolean', expiring_within_days: 'integer',
  },
  '/license/find': { app_id: 'uuid', query: 'string' },
  '/license/update-status': { license_key: 'string', status: 'string' },
  '/license/update-status-bulk': { license_keys: 'strings', status: 'string' },
  '/license/update-subscription': { license_key: 'string', subscription_id: 'uuid' },
  '/license/update-user-credentials': { license_key: 'string', username: 'string', password: 'string' },
  '/license/update-metadata': { license_key: 'string', metadata: 'object' },
  '/license/update-features': { license_key: 'string', features: 'strings' },
  '/license/update-usage-limits': { license_key: 'string', usage_limits: 'object' },
  '/license/reset-usage': { license_key: 'string', counter: 'string' },
  '/license/update-email': { license_key: 'string', email: 'string' },
  '/hwid/edit': { license_key: 'string', hwid: 'string' },
  '/hwid/toggle-lock': { license_key: 'string', hwid_lock: 'boolean' },
  '/hwid/toggle-lock-bulk': { license_keys: 'strings', hwid_lock: 'boolean' },
  '/hwid/toggle-reset-allowed': { license_key: 'string', hwid_reset_allowed: 'boolean' },
  '/hwid/update-reset-interval': { license_key: 'string', hwid_reset_interval: 'integer' },
  '/hwid/set-max-devices': { license_key: 'string', max_devices: 'integer' },
  '/hwid/remove': { license_key: 'string', hwid: 'string' },
  '/hwid/set-lease': { license_key: 'string', lease_seconds: 'integer' },
  '/subscription/create': { app_id: 'uuid', name: 'string', level: 'integer', single_key_per_hwid: 'boolean', features: 'strings', usage_limits: 'object', grace_seconds: 'integer' },
  '/subscription/edit': {
    subscription_id: 'uuid', name: 'string', level: 'integer', single_key_per_hwid: 'boolean', status: 'string', features: 'strings',
    usage_limits: 'object', grace_seconds: 'integer',
  },
  '/subscription/delete': { subscription_id: 'uuid' },
  '/subscription/get-bulk': { app_id: 'uuid' },
  '/blacklist/add': { app_id: 'uuid', type: 'string', value: 'string', reason: 'string' },
  '/blacklist/delete': { app_id: 'uuid', type: 'string', value: 'string' },
  '/blacklist/get-bulk': { app_id: 'uuid', type: 'string', cursor: 'string' },
  '/app/list': {},
  '/app/settings': { app_id: 'uuid', offline_token_ttl: 'integer', max_borrow_seconds: 'integer', max_license_file_seconds: 'integer', trial: 'object' },
  '/app/signing-key': { app_id: 'uuid' },
  '/app/stats': { app_id: 'uuid', days: 'integer' },
  '/app/create': { name: 'string', request_id: 'string' },
  '/app/update': { app_id: 'uuid', name: 'string', status: 'string' },
  '/app/rotate-signing-key': { app_id: 'uuid' },
  '/audit/get-bulk': { app_id: 'uuid', license_key: 'string', type: 'string', actor: 'string', from: 'string', to: 'string', per_page: 'integer', cursor: 'string' },
  '/apikey/create': { role: 'string', apps: 'strings', name: 'string' },
  '/apikey/list': {},
  '/apikey/revoke': { key_id: 'uuid' },
  '/apikey/current': {},
  '/webhook/create': { app_id: 'uuid', url: 'string', events: 'strings', description: 'string' },
  '/webhook/list': { app_id: 'uuid' },
  '/webhook/update': { webhook_id: 'uuid', url: 'string', events: 'strings', description: 'string', enabled: 'boolean' },
  '/webhook/delete': { webhook_id: 'uuid' },
  '/webhook/rotate-secret': { webhook_id: 'uuid' },
  '/webhook/deliveries': { webhook_id: 'uuid', state: 'string', per_page: 'integer', cursor: 'string' },
  '/webhook/redeliver': { delivery_id: 'string' },
  '/integration/stripe/set': { app_id: 'uuid', webhook_secret: 'string', api_key: 'string', prices: 'object' },
  '/integration/stripe/get': { app_id: 'uuid' },
  '/integration/stripe/delete': { app_id: 'uuid' },
  '/integration/stripe/licenses': { app_id: 'uuid', checkout_session: 'string' },
  '/portal/app': { app_id: 'uuid' },
  '/portal/sign-in': { app_id: 'uuid', email: 'string' },
  '/portal/verify': { app_id: 'uuid', email: 'string', code: 'string' },
  '/portal/sign-out': {},
  '/portal/licenses': {},
  '/portal/release-device': { license_key: 'string', hwid: 'string' },
  '/portal/license-file': { license_key: 'string', request: 'string' },
  '/portal/billing': { license_key: 'string' },
};

const hostileKeys = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];

const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.string({ unit: 'binary', maxLength: 50 }),
  fc.constantFrom('', ' ', '\u0000', '💥'.repeat(40), 'a'.repeat(5000), '../../etc/passwd', "' OR 1=1 --", '#', 'LIC#x', 'APP#'),
);

/** A value of any type other than the one the field takes (null excluded: it clears an HWID legitimately). */
function wrongType(type: FieldType): fc.Arbitrary<unknown> {
  const others: Record<FieldType, fc.Arbitrary<unknown>[]> = {
    uuid: [fc.integer(), fc.boolean(), fc.array(fc.string(), { maxLength: 3 }), fc.object({ maxDepth: 2 })],
    string: [fc.integer(), fc.boolean(), fc.array(fc.integer(), { maxLength: 3 }), fc.object({ maxDepth: 2 })],
    // NaN and ±Infinity are left out: JSON writes them as null, which is a value some integer fields take.
    integer: [fc.string(), fc.boolean(), fc.double({ noInteger: true, noNaN: true, noDefaultInfinity: true }), fc.object({ maxDepth: 1 }), fc.constant(-1)],
    boolean: [fc.string(), fc.integer(), fc.array(fc.boolean(), { maxLength: 2 }), fc.object({ maxDepth: 1 })],
    strings: [fc.string(), fc.integer(), fc.object({ maxDepth: 1 }), fc.array(fc.integer(), { minLength: 1, maxLength: 3 })],
    object: [fc.string(), fc.integer(), fc.array(fc.integer(), { maxLength: 3 }), fc.constant('x'.repeat(5000))],
  };
  return fc.oneof(...others[type]);
}

function anyValue(): fc.Arbitrary<unknown> {
  return fc.oneof(nasty, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.jsonValue({ maxDepth: 3 }));
}

let env: TestServer;
let owner: Owner;
let real: Record<string, unknown>;

beforeAll(async () => {
  env = await startTestServer();
  owner = await createOwner(env.deps);
  const subscription = await seedSubscription(env.deps, owner, { single_key_per_hwid: true });
  const license = await seedLicense(env.deps, subscription, { hwid_lock: true });
  real = {
    app_id: owner.app_id,
    subscription_id: subscription.subscription_id,
    license: license.key,
    license_key: license.key,
    license_keys: [license.key],
  };
});
afterAll(() => env.close());

/**
 * Every item but the daily counters: failed /auth attempts are counted by design (`auth_failures` of
 * /app/stats), and the counter writes them on a 60 s timer that may fire during any later route's run.
 */
async function snapshot(): Promise<string> {
  const { Items } = await env.deps.table.doc.send(new ScanCommand({ TableName: env.config.tableName }));
  const counters = keys.dailyStatsOfApp(owner.app_id);
  return JSON.stringify((Items ?? []).filter((item) => item.pk !== counters).sort((a, b) => `${a.pk}${a.sk}`.localeCompare(`${b.pk}${b.sk}`)));
}

/** A body for the route: real identifiers where it takes them, one field of the wrong type, hostile extra keys. */
function invalidBody(path: RoutePath): fc.Arbitrary<string> {
  const routeFields = Object.entries(fields[path]);
  // A route that takes no fields refuses any field at all.
  if (routeFields.length === 0) {
    return fc.dictionary(fc.constantFrom(...hostileKeys, 'x', ''), anyValue(), { minKeys: 1, maxKeys: 3 }).map((extras) => JSON.stringify(extras));
  }
  return fc
    .record({
      broken: fc.constantFrom(...routeFields),
      extras: fc.dictionary(fc.constantFrom(...hostileKeys, 'x', ''), anyValue(), { maxKeys: 3 }),
    })
    .chain(({ broken, extras }) =>
      wrongType(broken[1]).map((value) => {
        const body: Record<string, unknown> = {};
        for (const [name] of routeFields) if (name in real) body[name] = real[name];
        const extraText = Object.entries(extras).map(([key, extra]) => `${JSON.stringify(key)}:${JSON.stringify(extra)}`);
        const own = Object.entries({ ...body, [broken[0]]: value }).map(([key, v]) => `${JSON.stringify(key)}:${JSON.stringify(v)}`);
        return `{${[...extraText, ...own].join(',')}}`;
      }),
    );
}

/** Anything at all: random JSON, text that is not JSON, duplicate keys, empty bodies. */
function randomBody(path: RoutePath): fc.Arbitrary<string> {
  const names = Object.keys(fields[path]);
  const duplicateKeys = fc.tuple(fc.constantFrom(...names, ...hostileKeys), anyValue(), anyValue()).map(
    ([name, first, second]) => `{${JSON.stringify(name)}:${JSON.stringify(first)},${JSON.stringify(name)}:${JSON.stringify(second)}}`,
  );
  const bodies = fc.oneof(
    fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
    fc.dictionary(fc.constantFrom(...names, ...hostileKeys), anyValue(), { maxKeys: 6 }).map((value) => JSON.stringify(value)),
    nasty,
    fc.constantFrom('', '{', '[]', 'null', '"text"', '{"a":1}{"b":2}', '{"__proto__":{"polluted":true}}'),
    duplicateKeys,
  );
  // A random body the route accepts is no hostile body: `{"name": "x"}` is a valid /app/create.
  return bodies.filter((body) => !acceptedBody(path, body));
}

/** Whether the management route's own schema takes this body (`{}` for a route that takes no fields). */
function acceptedBody(path: RoutePath, body: string): boolean {
  const contract = contracts[path];
  if (isClientContract(contract)) return false;
  try {
    return z.safeParse(contract.request, JSON.parse(body)).success;
  } catch {
    return false;
  }
}

function assertDocumentedFailure(path: RoutePath, response: HttpResult) {
  const side = sideOf(routes.find((route) => route.path === path)!.group);
  expect(response.status).toBeGreaterThanOrEqual(400);
  expect(response.status).toBeLessThan(500);
  const text = JSON.stringify(response.body);
  expect(text).not.toMatch(/\bat .+\.(ts|js):\d+/);
  if (side === 'client') {
    expect(response.body).toEqual(expect.objectContaining({ success: false, message: expect.any(String) }));
  } else {
    expect(Object.keys(response.body).sort()).toEqual(['error', 'error_code']);
  }
}

const contentTypes = ['application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16'];

describe('every route under hostile bodies', () => {
  it.each(routes.map((route) => route.path))('%s answers a documented 4xx and changes nothing', async (path) => {
    const before = await snapshot();
    await fc.assert(
      fc.asyncProperty(fc.oneof(invalidBody(path), randomBody(path)), fc.constantFrom(...contentTypes), async (body, contentType) => {
        const headers = { 'content-type': contentType, ...(sideOf(routes.find((r) => r.path === path)!.group) === 'management' ? owner.auth : {}) };
        const response = await env.post(path, body, headers);
        assertDocumentedFailure(path, response);
      }),
      { numRuns: 40, interruptAfterTimeLimit: 20_000 },
    );
    expect(await snapshot()).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('answers a body over the limit with 413 on both sides', async () => {
    const huge = JSON.stringify({ app_id: owner.app_id, pad: 'x'.repeat(300 * 1024) });
    expect((await env.post('/auth', huge)).status).toBe(413);
    expect((await env.post('/license/get', huge, owner.auth)).status).toBe(413);
  });

  /** A JSON body of exactly `bytes` bytes (multi-byte characters count as their UTF-8 length). */
  const bodyOf = (bytes: number) => {
    const frame = JSON.stringify({ app_id: owner.app_id, pad: '' });
    return JSON.stringify({ app_id: owner.app_id, pad: 'é'.repeat(Math.floor((bytes - frame.length) / 2)) + 'x'.repeat((bytes - frame.length) % 2) });
  };

  it.each([
    ['/auth', 64 * 1024],
    ['/license/get', 256 * 1024],
  ])('%s takes a body of exactly its limit (%i bytes) and refuses one byte more with 413', async (path, limit) => {
    const headers = path === '/auth' ? {} : owner.auth;
    expect(Buffer.byteLength(bodyOf(limit))).toBe(limit);

    const atLimit = await env.post(path, bodyOf(limit), headers);
    const over = await env.post(path, bodyOf(limit + 1), headers);

    expect(atLimit.status).toBe(400);
    expect(over.status).toBe(413);
    expect(over.body).toEqual(path === '/auth' ? { success: false, message: 'Request body too large' } : { error: 'Request body too large', error_code: 'PAYLOAD_TOO_LARGE' });
  });
});
