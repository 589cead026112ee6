import type { Clock } from '#shared/clock';
import { keys } from '#data/keys';
import { getItem } from '#data/db';
import { createOwner, withOwner, type Owner } from '../support/owners';

let now = new Date('2026-06-01T10:00:00.000Z');
const clock: Clock = { now: () => now };

const { env, owner } = withOwner({ clock });

const post = (path: string, body: unknown, as: Owner = owner) => env.post(path, body, as.auth);
const unknownApp = '00000000-0000-4000-8000-000000000000';

describe('/blacklist/add', () => {
  it.each([
    ['country', 'de', 'DE'],
    ['asn', 'AS13335', '13335'],
    ['asn', '64512', '64512'],
    ['ip', '192.0.2.1', '192.0.2.1'],
    ['ip', '2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['ip', '::ffff:198.51.100.7', '198.51.100.7'],
    ['hwid', 'Device-XYZ', 'Device-XYZ'],
  ])('adds a %s entry for %s stored as %s, the key /auth looks up', async (type, value, normalized) => {
    const response = await post('/blacklist/add', { app_id: owner.app_id, type, value, reason: 'abuse' });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: { app_id: owner.app_id, type, value: normalized, reason: 'abuse', created_at: now.toISOString() },
    });
    const stored = await getItem(env.deps.table, keys.blacklist(owner.app_id, type as 'ip', normalized));
    expect(stored).toMatchObject({ value: normalized, reason: 'abuse' });
  });

  it('stores a null reason when none is sent', async () => {
    const response = await post('/blacklist/add', { app_id: owner.app_id, type: 'hwid', value: 'no-reason' });

    expect(response.body.data.reason).toBeNull();
  });

  it('replaces the reason when an entry is added again, keeping when it was first added', async () => {
    const firstAdded = now.toISOString();
    await post('/blacklist/add', { app_id: owner.app_id, type: 'country', value: 'fr', reason: 'first' });
    now = new Date(now.getTime() + 60_000);

    const response = await post('/blacklist/add', { app_id: owner.app_id, type: 'country', value: 'FR', reason: 'second' });

    expect(response.body.data).toMatchObject({ value: 'FR', reason: 'second', created_at: firstAdded });
  });

  it.each([
    ['country', 'DEU'],
    ['asn', 'ASX1'],
    ['asn', '99999999999'],
    ['ip', '300.1.1.1'],
    ['ip', 'example.com'],
    ['hwid', 'h'.repeat(257)],
  ])('answers 400 INVALID_INPUT naming value for a %s of %s, storing nothing', async (type, value) => {
    const response = await post('/blacklist/add', { app_id: owner.app_id, type, value });

    expect(response.status).toBe(400);
    expect(response.body.error_code).toBe('INVALID_INPUT');
    expect(response.body.error.startsWith('value:')).toBe(true);
  });

  it.each([
    ['type', { type: 'email', value: 'a@b.c' }],
    ['value', { type: 'ip' }],
    ['reason', { type: 'ip', value: '192.0.2.9', reason: 'r'.repeat(501) }],
    ['app_id', { app_id: 'not-a-uuid', type: 'ip', value: '192.0.2.9' }],
  ])('answers 400 INVALID_INPUT naming %s', async (field, body) => {
    const response = await post('/blacklist/add', { app_id: owner.app_id, ...body });

    expect(response.status).toBe(400);
    expect(response.body.error.startsWith(`${field}:`)).toBe(true);
  });

  it('answers 404 APP_NOT_FOUND for an unknown app', async () => {
    const response = await post('/blacklist/add', { app_id: unknownApp, type: 'ip', value: '192.0.2.1' });

    expect(response.status).toBe(404);
    expect(response.body.error_code).toBe('APP_NOT_FOUND');
  });
});

describe('/blacklist/delete', () => {
  it('deletes an entry named in any spelling of its value', async () => {
    await post('/blacklist/add', { app_id: owner.app_id, type: 'ip', value: '2001:db8::dead' });

    const response = await post('/blacklist/delete', { app_id: owner.app_id, type: 'ip', value: '2001:0DB8:0000::DEAD' });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, data: { type: 'ip', value: '2001:db8::dead', deleted: true } });
    expect(await getItem(env.deps.table, keys.blacklist(owner.app_id, 'ip', '2001:db8::dead'))).toBeUndefined();
  });

  it('answers 404 BLACKLIST_ENTRY_NOT_FOUND for an entry that does not exist', async () => {
    const response = await post('/blacklist/delete', { app_id: owner.app_id, type: 'asn', value: 'AS1' });

    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'Blacklist entry not found', error_code: 'BLACKLIST_ENTRY_NOT_FOUND' });
  });

  it('answers 400 INVALID_INPUT naming value for a value that is not of its type', async () => {
    const response = await post('/blacklist/delete', { app_id: owner.app_id, type: 'country', value: '12' });

    expect(response.status).toBe(400);
    expect(response.body.error.startsWith('value:')).toBe(true);
  });

  it('answers 404 APP_NOT_FOUND for an unknown app', async () => {
    const response = await post('/blacklist/delete', { app_id: unknownApp, type: 'country', value: 'DE' });

    expect(response.status).toBe(404);
    expect(response.body.error_code).toBe('APP_NOT_FOUND');
  });
});

describe('/blacklist/get-bulk', () => {
  let lister: Owner;
  const ips = ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4', '192.0.2.5'];

  beforeAll(async () => {
    lister = await createOwner(env.deps);
    for (const value of ips) await post('/blacklist/add', { app_id: lister.app_id, type: 'ip', value }, lister);
    await post('/blacklist/add', { app_id: lister.app_id, type: 'country', value: 'NL' }, lister);
    await post('/blacklist/add', { app_id: lister.app_id, type: 'hwid', value: 'bad-device' }, lister);
  });

  const list = (body: Record<string, unknown>) => post('/blacklist/get-bulk', { app_id: lister.app_id, ...body }, lister);

  it('lists every entry of the app in one page by default', async () => {
    const response = await list({});

    expect(response.status).toBe(200);
    expect(response.body.next_cursor).toBeNull();
    expect(response.body.data).toHaveLength(7);
    expect(response.body.data).toContainEqual(expect.objectContaining({ type: 'country', value: 'NL', app_id: lister.app_id }));
  });

  it('filters by type', async () => {
    const response = await list({ type: 'hwid' });

    expect(response.body.data).toEqual([expect.objectContaining({ type: 'hwid', value: 'bad-device' })]);
  });

  it('pages through full pages with a cursor, the last page carrying none', async () => {
    const first = await list({ type: 'ip', per_page: 2 });
    const second = await list({ type: 'ip', per_page: 2, cursor: first.body.next_cursor });
    const third = await list({ type: 'ip', per_page: 2, cursor: second.body.next_cursor });

    const pages = [first, second, third].map((page) => page.body.data.map((entry: { value: string }) => entry.value));
    expect(pages).toEqual([ips.slice(0, 2), ips.slice(2, 4), ips.slice(4)]);
    expect(typeof first.body.next_cursor).toBe('string');
    expect(third.body.next_cursor).toBeNull();
  });

  it('ends with a null cursor when the last page is exactly full', async () => {
    const first = await list({ type: 'ip', per_page: 3 });
    const second = await list({ type: 'ip', per_page: 3, cursor: first.body.next_cursor });

    expect(second.body.data).toHaveLength(2);
    expect(second.body.next_cursor).toBeNull();
    const exact = await list({ type: 'ip', per_page: 5 });
    expect(exact.body.next_cursor).toBeNull();
  });

  it('answers 400 INVALID_INPUT naming cursor for a malformed cursor and for another app’s cursor', async () => {
    const foreign = await post('/blacklist/get-bulk', { app_id: lister.app_id, type: 'ip', per_page: 1 }, lister);

    const malformed = await post('/blacklist/get-bulk', { app_id: owner.app_id, cursor: 'not-base64-json' });
    const elsewhere = await post('/blacklist/get-bulk', { app_id: owner.app_id, cursor: foreign.body.next_cursor });

    for (const response of [malformed, elsewhere]) {
      expect(response.status).toBe(400);
      expect(response.body.error.startsWith('cursor:')).toBe(true);
    }
  });

  it('answers 400 INVALID_INPUT naming cursor when the type filter changed between pages', async () => {
    const first = await list({ type: 'ip', per_page: 1 });

    const response = await list({ type: 'country', cursor: first.body.next_cursor });

    expect(response.status).toBe(400);
    expect(response.body.error.startsWith('cursor:')).toBe(true);
  });

  it.each([
    ['per_page', { per_page: 0 }],
    ['per_page', { per_page: 101 }],
    ['type', { type: 'email' }],
  ])('answers 400 INVALID_INPUT naming %s for %j', async (field, body) => {
    const response = await list(body);

    expect(response.status).toBe(400);
    expect(response.body.error.startsWith(`${field}:`)).toBe(true);
  });

  it('answers 404 APP_NOT_FOUND for an unknown app', async () => {
    const response = await post('/blacklist/get-bulk', { app_id: unknownApp });

    expect(response.status).toBe(404);
    expect(response.body.error_code).toBe('APP_NOT_FOUND');
  });
});
