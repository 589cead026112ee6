import { sha256Hex } from '#core/ids';
import { startTestEvents, type TestEvents } from '../support/events';
import { startTestServer, type TestServer } from '../support/env';
import { seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';
import * as eventsRepo from '#data/events.repo';

let env: TestServer;
let events: TestEvents;
let owner: Owner;
let keys: string[];

beforeAll(async () => {
  env = await startTestServer();
  events = await startTestEvents(env);
  owner = await createOwner(env.deps);
  const subscription = await seedSubscription(env.deps, owner);
  const created = await env.post(
    '/license/create-bulk',
    { key_amount: 4, app_id: owner.app_id, subscription_id: subscription.subscription_id, duration_unit: 'days', duration_value: 1, hwid_lock: false, tags: [] },
    owner.auth,
  );
  keys = created.body.data.map((license: { key: string }) => license.key);
  for (const key of keys.slice(0, 2)) await env.post('/auth', { app_id: owner.app_id, license: key });
  await env.post('/license/update-status', { license_key: keys[0], status: 'paused' }, owner.auth);
  await env.post('/license/update-status', { license_key: keys[0], status: 'active' }, owner.auth);
  await events.drain();
});
afterAll(async () => {
  await events.stop();
  await env.close();
});

const list = (body: Record<string, unknown>, auth = owner.auth) => env.post('/audit/get-bulk', { app_id: owner.app_id, ...body }, auth);

async function everyPage(body: Record<string, unknown>) {
  const pages: any[][] = [];
  let cursor: string | null = null;
  do {
    const page = await list({ ...body, ...(cursor ? { cursor } : {}) });
    expect(page.status).toBe(200);
    pages.push(page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor);
  return pages;
}

describe('POST /audit/get-bulk', () => {
  it('pages newest first with next_cursor until null, every event once', async () => {
    const pages = await everyPage({ per_page: 3 });
    const all = pages.flat();
    // The application, the subscription, 4 licenses created, 2 activated, 2 status changes.
    expect(all).toHaveLength(10);
    expect(pages.slice(0, -1).every((page) => page.length === 3)).toBe(true);
    expect(new Set(all.map((event) => event.id)).size).toBe(10);
    expect(all[0]).toMatchObject({ type: 'license.status_changed', subject: keys[0], after: { status: 'active' } });
    expect(all.at(-1)).toMatchObject({ type: 'app.created', subject: owner.app_id, actor: 'admin' });
    const times = all.map((event) => event.at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(Object.keys(all[0]).sort()).toEqual(['actor', 'after', 'app_id', 'at', 'before', 'id', 'subject', 'type']);
  });

  it('filters by license and by type, alone and together', async () => {
    const ofLicense = (await everyPage({ license_key: keys[0], per_page: 2 })).flat();
    expect(ofLicense.map((event) => event.type)).toEqual(['license.status_changed', 'license.status_changed', 'license.activated', 'license.created']);
    const created = (await everyPage({ type: 'license.created' })).flat();
    expect(created.map((event) => event.subject).sort()).toEqual([...keys].sort());
    const both = (await everyPage({ license_key: keys[1], type: 'license.activated' })).flat();
    expect(both).toMatchObject([{ type: 'license.activated', subject: keys[1], actor: 'client' }]);
    expect((await list({ license_key: 'NO-SUCH-LICENSE' })).body).toEqual({ success: true, data: [], next_cursor: null });
  });

  it('answers ACCESS_DENIED for another owner\'s app, and INVALID_INPUT for an unknown type or a foreign cursor', async () => {
    const other = await createOwner(env.deps);
    const denied = await env.post('/audit/get-bulk', { app_id: owner.app_id }, other.auth);
    expect(denied.status).toBe(403);
    expect(denied.body.error_code).toBe('ACCESS_DENIED');
    expect((await list({ type: 'license.exploded' })).body.error_code).toBe('INVALID_INPUT');
    const page = await list({ per_page: 1 });
    const replayed = await env.post('/audit/get-bulk', { app_id: other.app_id, cursor: page.body.next_cursor }, other.auth);
    expect(replayed.status).toBe(400);
    expect(replayed.body.error_code).toBe('INVALID_INPUT');
  });

  it('answers INVALID_INPUT naming cursor for a cursor sent with other filters than it was issued for', async () => {
    const page = await list({ license_key: keys[0], per_page: 1 });
    const cursor = page.body.next_cursor;

    const unfiltered = await list({ cursor });
    const otherLicense = await list({ license_key: keys[1], cursor });
    const withType = await list({ license_key: keys[0], type: 'license.created', cursor });
    const same = await list({ license_key: keys[0], per_page: 3, cursor });

    for (const answer of [unfiltered, otherLicense, withType]) {
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ error: expect.stringMatching(/^cursor: /), error_code: 'INVALID_INPUT' });
    }
    expect(same.status).toBe(200);
    expect(same.body.data.map((event: { type: string }) => event.type)).toEqual(['license.status_changed', 'license.activated', 'license.created']);
  });

  it('filters by actor, alone and with a license', async () => {
    const owners = `api_key:${sha256Hex(owner.api_key).slice(0, 8)}`;

    const byOwner = (await everyPage({ actor: owners, per_page: 2 })).flat();
    const byClient = (await everyPage({ actor: 'client', license_key: keys[1] })).flat();
    const byAdmin = (await everyPage({ actor: 'admin' })).flat();

    expect(byOwner.map((event) => event.type)).toEqual(['license.status_changed', 'license.status_changed', ...keys.map(() => 'license.created')]);
    expect(byClient).toMatchObject([{ type: 'license.activated', subject: keys[1] }]);
    expect(byAdmin.map((event) => event.type).sort()).toEqual(['app.created', 'subscription.created']);
  });

  it('keeps events from `from` (inclusive) to `to` (exclusive), with the other filters and across pages', async () => {
    // The stream stamps events with the store's clock: audit items of chosen times are written as the consumer writes them.
    const fresh = await createOwner(env.deps);
    const event = (id: string, at: string, subject: string) => ({ id, type: 'license.extended', app_id: fresh.app_id, subject, at, actor: 'admin' });
    const written = [
      event('e0', '2026-03-01T10:00:00.000Z', 'KEY-ONE'),
      event('e1', '2026-03-01T10:00:01.000Z', 'KEY-ONE'),
      event('e2', '2026-03-01T10:00:02.000Z', 'KEY-TWO'),
      event('e3', '2026-03-01T11:00:00.000Z', 'KEY-ONE'),
    ];
    await eventsRepo.record(
      env.deps.table,
      written.map((item, index) => ({ recordId: `${fresh.app_id}-${index}`, sequenceNumber: String(index + 1), events: [item], counts: [], additions: [], licenseKeyOf: (e) => e.subject })),
      new Date(),
      90,
    );
    const ids = async (body: Record<string, unknown>) => {
      const found: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await env.post('/audit/get-bulk', { app_id: fresh.app_id, type: 'license.extended', per_page: 1, ...body, ...(cursor ? { cursor } : {}) }, fresh.auth);
        expect(page.status).toBe(200);
        found.push(...page.body.data.map((item: { id: string }) => item.id));
        cursor = page.body.next_cursor;
      } while (cursor);
      return found;
    };

    expect(await ids({ from: '2026-03-01T10:00:01Z' })).toEqual(['e3', 'e2', 'e1']);
    expect(await ids({ to: '2026-03-01T10:00:02Z' })).toEqual(['e1', 'e0']);
    expect(await ids({ from: '2026-03-01T10:00:01Z', to: '2026-03-01T11:00:00Z' })).toEqual(['e2', 'e1']);
    expect(await ids({ from: '2026-03-01T10:00:00Z', to: '2026-03-01T11:00:00.001Z', license_key: 'KEY-ONE' })).toEqual(['e3', 'e1', 'e0']);
    expect(await ids({ from: '2026-03-01T11:00:00+01:00', to: '2026-03-01T12:00:00+01:00', actor: 'admin' })).toEqual(['e2', 'e1', 'e0']);
    expect(await ids({ from: '2026-03-01T10:00:03Z', to: '2026-03-01T10:59:59Z' })).toEqual([]);
  });

  it.each([
    [{ from: 'yesterday' }, 'from'],
    [{ to: '2026-13-45T99:00:00Z' }, 'to'],
    [{ from: '2026-03-02T00:00:00Z', to: '2026-03-01T00:00:00Z' }, 'to'],
    [{ from: '2026-03-01T00:00:00Z', to: '2026-03-01T00:00:00Z' }, 'to'],
    [{ actor: 'api_key:XYZ' }, 'actor'],
    [{ actor: 'APP#x' }, 'actor'],
  ])('answers 400 INVALID_INPUT naming the field for %j', async (body, field) => {
    const answer = await list(body);

    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: expect.stringMatching(new RegExp(`^${field}: `)), error_code: 'INVALID_INPUT' });
  });

  it('answers INVALID_INPUT naming cursor for a cursor sent with another actor or time range', async () => {
    const cursor = (await list({ actor: 'client', per_page: 1 })).body.next_cursor;

    expect((await list({ actor: 'admin', cursor })).body.error).toMatch(/^cursor: /);
    expect((await list({ actor: 'client', from: '2020-01-01T00:00:00Z', cursor })).body.error).toMatch(/^cursor: /);
    expect((await list({ actor: 'client', cursor })).status).toBe(200);
  });
});
