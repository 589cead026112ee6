import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createDeps } from '#core/deps';
import { createLogger } from '#core/logger';
import { keys } from '#data/keys';
import * as lookups from '#data/lookup.repo';
import { maxLicensesPerEmail } from '#data/model/lookup';
import { startLocalServer } from '../../local/server';
import { createFakeClock } from '../support/clock';
import { firstOnly, loseAnswers } from '../support/dynamo-faults';
import { startTestEvents, type TestEvents } from '../support/events';
import { createTestClient, request, startTestServer, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';
import type { Subscription } from '#data/model/subscription';

const clock = createFakeClock(new Date('2026-03-10T12:00:00.000Z'));
let env: TestServer;
let events: TestEvents;
let owner: Owner;
let other: Owner;
let subscription: Subscription;

beforeAll(async () => {
  env = await startTestServer({ clock, config: { cacheTtlSeconds: 0 } });
  events = await startTestEvents(env);
  owner = await createOwner(env.deps);
  other = await createOwner(env.deps);
  subscription = await seedSubscription(env.deps, owner);
});
afterAll(async () => {
  await events.stop();
  await env.close();
});

const manage = (path: string, body: unknown, as: Owner = owner) => env.post(path, body, as.auth);
const createBody = (extra: Record<string, unknown> = {}) => ({ app_id: owner.app_id, subscription_id: subscription.subscription_id, duration_unit: 'days', duration_value: 30, ...extra });

async function create(extra: Record<string, unknown> = {}): Promise<{ key: string; email?: string }> {
  const created = await manage('/license/create', createBody(extra));
  expect(created.status).toBe(200);
  return created.body.data;
}

/** The item keys of the licenses the email's lookup entries name, as `licensesWithEmail` reads them. */
async function withEmail(email: string, appId = owner.app_id): Promise<string[]> {
  return (await lookups.licensesWithEmail(env.deps.table, appId, email)).map((key) => key.pk).sort();
}
const itemPk = (key: string) => keys.license(key).pk;

const findByQuery = async (query: string) => {
  const answer = await manage('/license/find', { app_id: owner.app_id, query });
  expect(answer.status).toBe(200);
  return (answer.body.data.matches as { matched: string[]; license: { key: string; email?: string } }[]).map((match) => ({ key: match.license.key, matched: match.matched, email: match.license.email }));
};

describe('a license\'s customer email', () => {
  it('is stored trimmed and lower-cased by /license/create and answered in the record of get, get-bulk and find', async () => {
    const created = await create({ email: '  Ann.Buyer+Pro@Example.COM ' });
    expect(created.email).toBe('ann.buyer+pro@example.com');
    const got = await manage('/license/get', { license_key: created.key });
    expect(got.body.data).toEqual(created);
    const listed = await manage('/license/get-bulk', { app_id: owner.app_id, per_page: 100 });
    expect(listed.body.data.find((license: { key: string }) => license.key === created.key)).toEqual(created);
    const found = await manage('/license/find', { app_id: owner.app_id, query: created.key });
    expect(found.body.data.matches).toEqual([{ matched: ['key'], license: created }]);
    // A license without an email answers as before: no `email` field at all.
    expect(await create()).not.toHaveProperty('email');
  });

  it('is given to every license /license/create-bulk makes, with and without a request_id', async () => {
    for (const extra of [{}, { request_id: 'bulk-email-1' }]) {
      const made = await manage('/license/create-bulk', { ...createBody({ email: 'Team@Example.com' }), key_amount: 3, ...extra });
      expect(made.status).toBe(200);
      expect(made.body.data.map((license: { email: string }) => license.email)).toEqual(['team@example.com', 'team@example.com', 'team@example.com']);
    }
    await events.drain();
    expect(await withEmail('team@example.com')).toHaveLength(6);
  });

  it('is set, changed and removed by /license/update-email, and /license/find follows it case-insensitively', async () => {
    const { key } = await create();
    const set = await manage('/license/update-email', { license_key: key, email: 'Carol@Example.org' });
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ key, email: 'carol@example.org' });
    await events.drain();
    for (const query of ['carol@example.org', 'CAROL@Example.ORG', '  Carol@example.org ']) {
      expect(await findByQuery(query)).toEqual([{ key, matched: ['email'], email: 'carol@example.org' }]);
    }

    expect((await manage('/license/update-email', { license_key: key, email: 'dave@example.org' })).body.data.email).toBe('dave@example.org');
    // Until the consumer catches up the old entry may still name the license: the license read says it moved on.
    expect(await findByQuery('carol@example.org')).toEqual([]);
    await events.drain();
    expect(await findByQuery('carol@example.org')).toEqual([]);
    expect(await findByQuery('dave@example.org')).toEqual([{ key, matched: ['email'], email: 'dave@example.org' }]);

    const removed = await manage('/license/update-email', { license_key: key, email: null });
    expect(removed.status).toBe(200);
    expect(removed.body.data).not.toHaveProperty('email');
    await events.drain();
    expect(await findByQuery('dave@example.org')).toEqual([]);
    expect(await withEmail('dave@example.org')).toEqual([]);
  });

  it('finds every license of one email, newest first, with a license found two ways listed once', async () => {
    const first = await create({ email: 'erin@example.net' });
    clock.advance(1);
    const second = await create({ email: 'erin@example.net', hwid_lock: true });
    clock.advance(1);
    // An HWID may look like an address: the license bound to it and carrying it matches both ways.
    expect((await env.post('/auth', { app_id: owner.app_id, license: second.key, hwid: 'erin@example.net' })).status).toBe(200);
    await create({ email: 'someone-else@example.net' });
    await events.drain();
    expect(await findByQuery('erin@example.net')).toEqual([
      { key: second.key, matched: ['hwid', 'email'], email: 'erin@example.net' },
      { key: first.key, matched: ['email'], email: 'erin@example.net' },
    ]);
    // HWIDs are matched as sent, emails whatever their case.
    expect(await findByQuery('Erin@Example.net')).toEqual([
      { key: second.key, matched: ['email'], email: 'erin@example.net' },
      { key: first.key, matched: ['email'], email: 'erin@example.net' },
    ]);
  });

  it('reaches only its own application: another owner finds nothing of it, and cannot set it', async () => {
    const { key } = await create({ email: 'frank@example.com' });
    await events.drain();
    const theirs = await manage('/license/find', { app_id: other.app_id, query: 'frank@example.com' }, other);
    expect([theirs.status, theirs.body.data.matches]).toEqual([200, []]);
    const denied = await manage('/license/update-email', { license_key: key, email: 'mallory@example.com' }, other);
    expect([denied.status, denied.body.error_code]).toEqual([404, 'LICENSE_NOT_FOUND']);
    expect((await manage('/license/get', { license_key: key })).body.data.email).toBe('frank@example.com');
    const missing = await manage('/license/update-email', { license_key: 'NO-SUCH-LICENSE-KEY', email: null });
    expect([missing.status, missing.body]).toEqual([404, { error: expect.any(String), error_code: 'LICENSE_NOT_FOUND' }]);
  });

  it('refuses what is no address, or longer than 254 characters, with INVALID_INPUT naming email', async () => {
    const { key } = await create();
    const longest = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
    expect(longest).toHaveLength(254);
    const set = await manage('/license/update-email', { license_key: key, email: longest.toUpperCase() });
    expect([set.status, set.body.data?.email]).toEqual([200, longest]);

    const bad: unknown[] = ['', '   ', 'no-at-sign', 'two@@example.com', 'a@b', 'ann@example', 'ann @example.com', 'ann@exa mple.com', '.ann@example.com', 'a..b@example.com', `x${longest}`, 42, true, [], {}, ['ann@example.com']];
    for (const email of bad) {
      for (const [path, body] of [
        ['/license/update-email', { license_key: key, email }],
        ['/license/create', createBody({ email })],
        ['/license/create-bulk', { ...createBody({ email }), key_amount: 1 }],
      ] as const) {
        const answer = await manage(path, body);
        expect([path, answer.status, answer.body]).toEqual([path, 400, { error: expect.stringContaining('email'), error_code: 'INVALID_INPUT' }]);
      }
    }
    const missing = await manage('/license/update-email', { license_key: key });
    expect([missing.status, missing.body.error_code, missing.body.error]).toEqual([400, 'INVALID_INPUT', expect.stringContaining('email')]);
    expect((await manage('/license/get', { license_key: key })).body.data.email).toBe(longest);
  });

  it('is set once and answered as set when the store applied the write but its answer was lost', async () => {
    const { key } = await create();
    const client = createTestClient(env.config);
    const loss = loseAnswers(client, 'UpdateItemCommand', firstOnly);
    const server = await startLocalServer({ deps: createDeps(env.config, { client, logger: createLogger('silent'), clock }), port: 0 });
    try {
      const set = await request(server.url, '/license/update-email', 'POST', { license_key: key, email: 'Gina@Example.com' }, { 'x-api-key': owner.api_key });
      expect(loss.lost()).toBe(1);
      expect([set.status, set.body.data.email]).toEqual([200, 'gina@example.com']);
      const removed = await request(server.url, '/license/update-email', 'POST', { license_key: key, email: null }, { 'x-api-key': owner.api_key });
      expect([removed.status, removed.body.data.email]).toEqual([200, undefined]);
    } finally {
      await server.close();
      client.destroy();
    }
    await events.drain();
    expect(await withEmail('gina@example.com')).toEqual([]);
    expect((await manage('/license/get', { license_key: key })).body.data).not.toHaveProperty('email');
  });
});

describe('lookup entries by email', () => {
  it('follow a license\'s email through its creation, change, removal and deletion', async () => {
    const first = await create({ email: 'hank@example.com' });
    const second = await create({ email: 'hank@example.com' });
    const unrelated = await create();
    await events.drain();
    expect(await withEmail('hank@example.com')).toEqual([itemPk(first.key), itemPk(second.key)].sort());
    // The entries are the application's: another application's lookup of the same address finds none of them.
    expect(await withEmail('hank@example.com', other.app_id)).toEqual([]);

    await manage('/license/update-email', { license_key: first.key, email: 'ivy@example.com' });
    await manage('/license/update-email', { license_key: unrelated.key, email: 'ivy@example.com' });
    await events.drain();
    expect(await withEmail('hank@example.com')).toEqual([itemPk(second.key)]);
    expect(await withEmail('ivy@example.com')).toEqual([itemPk(first.key), itemPk(unrelated.key)].sort());

    await manage('/license/update-email', { license_key: unrelated.key, email: null });
    expect((await manage('/license/delete', { license_key: first.key })).status).toBe(200);
    await events.drain();
    expect(await withEmail('ivy@example.com')).toEqual([]);
    expect(await withEmail('hank@example.com')).toEqual([itemPk(second.key)]);
  });

  it('keep a license created with a custom key under its team\'s item', async () => {
    const custom = await create({ license_key: 'EMAIL-CUSTOM-1', email: 'jade@example.com' });
    await events.drain();
    expect(await withEmail('jade@example.com')).toEqual([keys.license(custom.key, owner.team_id).pk]);
    expect(await findByQuery('jade@example.com')).toEqual([{ key: custom.key, matched: ['email'], email: 'jade@example.com' }]);
  });

  it('are read at most maxLicensesPerEmail at a time, with one query', async () => {
    const many = await Promise.all(Array.from({ length: maxLicensesPerEmail + 3 }, () => seedLicense(env.deps, subscription, { email: 'many@example.com' })));
    await events.drain();
    const stored = await env.deps.table.doc.send(
      new QueryCommand({ TableName: env.deps.table.name, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.licensesOfEmail(owner.app_id, 'many@example.com') } }),
    );
    expect(stored.Items).toHaveLength(many.length);
    const found = await withEmail('many@example.com');
    expect(found).toHaveLength(maxLicensesPerEmail);
    expect(found.every((pk) => many.some((license) => itemPk(license.key) === pk))).toBe(true);
  });
});
