import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { migrateLookupEntries } from '../../functions/admin/maintenance';
import { keys } from '#data/keys';
import { meterDynamo, type DynamoMeter } from '../../local/ddb-meter';
import { createFakeClock } from '../support/clock';
import { startTestEvents, type TestEvents } from '../support/events';
import { startTestServer, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';
import type { Subscription } from '#data/model/subscription';
import * as migrations from '#data/migrations';
import { lookupMigration } from '#data/model/lookup';

const clock = createFakeClock(new Date('2026-03-10T12:00:00.000Z'));
let env: TestServer;
let events: TestEvents;
let owner: Owner;
let other: Owner;
let subscription: Subscription;
let meter: DynamoMeter;

beforeAll(async () => {
  env = await startTestServer({ clock, config: { cacheTtlSeconds: 0 } });
  events = await startTestEvents(env);
  owner = await createOwner(env.deps);
  other = await createOwner(env.deps);
  subscription = await seedSubscription(env.deps, owner);
  meter = meterDynamo(env.client);
});
afterAll(async () => {
  await events.stop();
  await env.close();
});

async function createLicense(extra: Record<string, unknown> = {}): Promise<string> {
  const created = await env.post(
    '/license/create',
    { app_id: owner.app_id, subscription_id: subscription.subscription_id, duration_unit: 'days', duration_value: 30, hwid_lock: true, ...extra },
    owner.auth,
  );
  expect(created.status).toBe(200);
  return created.body.data.key;
}

const find = (query: string, appId = owner.app_id, auth = owner.auth) => env.post('/license/find', { app_id: appId, query }, auth);
const matchesOf = async (query: string) => {
  const answer = await find(query);
  expect(answer.status).toBe(200);
  return (answer.body.data.matches as { matched: string[]; license: { key: string } }[]).map((match) => ({ key: match.license.key, matched: match.matched }));
};
const bind = async (license: string, hwid: string) => expect((await env.post('/auth', { app_id: owner.app_id, license, hwid })).status).toBe(200);

/** The lookup entries under one device's partition, read from the table. */
async function deviceEntries(hwid: string): Promise<string[]> {
  const page = await env.deps.table.doc.send(
    new QueryCommand({ TableName: env.deps.table.name, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.devicesOf(owner.app_id, hwid) } }),
  );
  return (page.Items ?? []).map((item) => String(item.license_key)).sort();
}

describe('POST /license/find', () => {
  it('finds a license by its key with the record /license/get answers', async () => {
    const key = await createLicense();
    const answer = await find(key);
    expect(answer.status).toBe(200);
    const got = await env.post('/license/get', { license_key: key }, owner.auth);
    expect(answer.body.data).toEqual({ matches: [{ matched: ['key'], license: got.body.data }] });
  });

  it('finds a license by its username, whatever the case and surrounding spaces', async () => {
    const key = await createLicense({ username: 'Alice.Smith', password: 'a long password' });
    expect(await matchesOf('alice.smith')).toEqual([{ key, matched: ['username'] }]);
    expect(await matchesOf('  ALICE.SMITH ')).toEqual([{ key, matched: ['username'] }]);
  });

  it('finds every license that has a device bound, once the stream is consumed, and forgets it when it goes', async () => {
    const first = await createLicense();
    clock.advance(1);
    const [second, third] = [await createLicense(), await createLicense({ max_devices: 2 })];
    await bind(first, 'shared-desk');
    clock.advance(1);
    await bind(second, 'shared-desk');
    await bind(third, 'laptop-1');
    await bind(third, 'laptop-2');
    await events.drain();
    expect(await matchesOf('shared-desk')).toEqual([
      { key: second, matched: ['hwid'] },
      { key: first, matched: ['hwid'] },
    ]);
    expect(await matchesOf('laptop-2')).toEqual([{ key: third, matched: ['hwid'] }]);

    expect((await env.post('/hwid/remove', { license_key: third, hwid: 'laptop-2' }, owner.auth)).status).toBe(200);
    expect((await env.post('/hwid/edit', { license_key: first, hwid: null }, owner.auth)).status).toBe(200);
    expect((await env.post('/license/delete', { license_key: second }, owner.auth)).status).toBe(200);
    // Before the consumer catches up an entry may outlive its binding: the license read says it is gone.
    expect(await matchesOf('laptop-2')).toEqual([]);
    await events.drain();
    expect(await matchesOf('shared-desk')).toEqual([]);
    expect(await matchesOf('laptop-1')).toEqual([{ key: third, matched: ['hwid'] }]);
    expect(await deviceEntries('shared-desk')).toEqual([]);
    expect(await deviceEntries('laptop-2')).toEqual([]);
  });

  it('answers no match with an empty list, an unknown app with APP_NOT_FOUND and another owner\'s app with ACCESS_DENIED', async () => {
    expect(await matchesOf('nobody-has-this')).toEqual([]);
    const unknown = await find('anything', '0b7e6c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b');
    expect([unknown.status, unknown.body.error_code]).toEqual([404, 'APP_NOT_FOUND']);
    const foreign = await seedSubscription(env.deps, other);
    const theirs = await seedLicense(env.deps, foreign, { hwid: 'their-desk' });
    await events.drain();
    for (const query of [theirs.key, 'their-desk', 'nothing-at-all']) {
      const denied = await find(query, other.app_id);
      expect([denied.status, denied.body.error_code]).toEqual([403, 'ACCESS_DENIED']);
    }
    // Their key asked of one's own app finds nothing of theirs.
    expect(await matchesOf(theirs.key)).toEqual([]);
  });

  it('refuses bad input with INVALID_INPUT and the failing field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ app_id: owner.app_id }, 'query'],
      [{ app_id: owner.app_id, query: '' }, 'query'],
      [{ app_id: owner.app_id, query: 'x'.repeat(257) }, 'query'],
      [{ app_id: owner.app_id, query: 42 }, 'query'],
      [{ app_id: 'not-a-uuid', query: 'abc' }, 'app_id'],
    ];
    for (const [body, field] of cases) {
      const answer = await env.post('/license/find', body, owner.auth);
      expect([answer.status, answer.body.error_code]).toEqual([400, 'INVALID_INPUT']);
      expect(answer.body.error).toContain(field);
    }
  });

  it('reads at most 3 units for a key, a username, a bound HWID, an email or no match', async () => {
    const byKey = await createLicense();
    await createLicense({ username: 'metered-user', password: 'a long password' });
    await bind(await createLicense(), 'metered-desk');
    await createLicense({ email: 'metered@example.com' });
    await events.drain();
    const cost: Record<string, { read: number; write: number }> = {};
    for (const [kind, query] of [['key', byKey], ['username', 'metered-user'], ['hwid', 'metered-desk'], ['email', 'Metered@Example.com'], ['none', 'nothing-matches']] as const) {
      meter.reset();
      const answer = await find(query);
      expect(answer.status).toBe(200);
      expect(answer.body.data.matches).toHaveLength(kind === 'none' ? 0 : 1);
      cost[kind] = { read: meter.readUnits(), write: meter.writeUnits() };
    }
    // As DynamoDB Local reports them (it charges nothing for a key a batch did not find); billed with every missing
    // item at half a unit they are 2.5, 3, 3, 3 and 2.5 (docs/management-api.md, "Finding licenses").
    expect(cost).toEqual({ key: { read: 2, write: 0 }, username: { read: 2, write: 0 }, hwid: { read: 2.5, write: 0 }, email: { read: 2.5, write: 0 }, none: { read: 1.5, write: 0 } });
    for (const { read } of Object.values(cost)) expect(read).toBeLessThanOrEqual(3);
  });

  it('leaves what /auth writes as it was: the consumer, not the request, writes the lookup entries', async () => {
    const key = await createLicense();
    meter.reset();
    await bind(key, 'cost-desk');
    const binding = meter.writeUnits();
    meter.reset();
    await bind(key, 'cost-desk');
    // As before lookups existed: the binding check's license update and its listing entry's first-use copy, then 1.
    expect({ binding, warm: meter.writeUnits() }).toEqual({ binding: 2, warm: 1 });
    meter.reset();
    await events.drain();
    expect(await deviceEntries('cost-desk')).toEqual([key]);
  });

  it('keeps the entries exact while devices bind, are removed and reset at once', async () => {
    const key = await createLicense({ max_devices: 5 });
    const devices = ['race-1', 'race-2', 'race-3', 'race-4', 'race-5', 'race-6'];
    await Promise.all([
      ...devices.map((hwid) => env.post('/auth', { app_id: owner.app_id, license: key, hwid })),
      env.post('/hwid/remove', { license_key: key, hwid: 'race-1' }, owner.auth),
      env.post('/hwid/remove', { license_key: key, hwid: 'race-4' }, owner.auth),
    ]);
    await events.drain();
    const bound = (await env.post('/license/get', { license_key: key }, owner.auth)).body.data.hwids as string[];
    for (const hwid of devices) expect(await deviceEntries(hwid)).toEqual(bound.includes(hwid) ? [key] : []);
    expect((await env.post('/hwid/edit', { license_key: key, hwid: null }, owner.auth)).status).toBe(200);
    await events.drain();
    for (const hwid of devices) expect(await deviceEntries(hwid)).toEqual([]);
  });

  it('finds devices bound and emails set before the entries existed once the migration has run', async () => {
    const email = 'long-ago@example.com';
    const old = await seedLicense(env.deps, subscription, { hwid: 'bound-long-ago', email, first_used_at: clock.now().toISOString(), expires_at: '2026-04-01T00:00:00.000Z' });
    // As a table from before the entries holds it: no consumer has seen the license (the stream is not drained).
    expect(await matchesOf('bound-long-ago')).toEqual([]);
    expect(await matchesOf(email)).toEqual([]);
    const migrated = await migrateLookupEntries(env.deps);
    expect(migrated.entries).toBeGreaterThan(0);
    expect(await matchesOf('bound-long-ago')).toEqual([{ key: old.key, matched: ['hwid'] }]);
    expect(await matchesOf(email)).toEqual([{ key: old.key, matched: ['email'] }]);
    expect(await migrations.hasRun(env.deps.table, lookupMigration)).toBe(true);
  });
});
