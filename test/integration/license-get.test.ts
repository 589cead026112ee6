import { createApp } from '../../functions/admin/owners';
import type { Subscription } from '#data/model/subscription';
import { startTestServer, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { listAllLicenses } from '../support/licenses';
import { createOwner, type Owner } from '../support/owners';
import * as credentials from '#data/credentials.repo';

let env: TestServer;
let owner: Owner;
let gold: Subscription;
let silver: Subscription;
/** 23 licenses with distinct creation times: every third paused, every fourth tagged, odd ones Gold. */
const seeded: { key: string; created_at: string; status: string; tags: string[]; subscription_id: string }[] = [];

beforeAll(async () => {
  env = await startTestServer();
  owner = await createOwner(env.deps);
  gold = await seedSubscription(env.deps, owner, { name: 'Gold', level: 2 });
  silver = await seedSubscription(env.deps, owner, { name: 'Silver', level: 1 });
  for (let i = 0; i < 23; i++) {
    const license = await seedLicense(env.deps, i % 2 ? gold : silver, {
      created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      status: i % 3 === 0 ? 'paused' : 'active',
      tags: i % 4 === 0 ? ['vip'] : [],
    });
    seeded.push(license);
  }
});
afterAll(() => env.close());

const keysOf = (licenses: { key: string }[]) => licenses.map((license) => license.key);
const newestFirst = () => [...seeded].reverse();

describe('POST /license/get', () => {
  it('answers the license record with its subscription’s name and level, never a password hash', async () => {
    const license = await seedLicense(env.deps, gold, { metadata: { order: 'A-1' } });
    await credentials.set(env.deps.table, license, 'judy', '$2b$04$secret-hash');

    const response = await env.post('/license/get', { license_key: license.key }, owner.auth);

    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ key: license.key, subscription_name: 'Gold', subscription_level: 2, username: 'judy', metadata: { order: 'A-1' } });
    expect(JSON.stringify(response.body)).not.toContain('secret-hash');
    await env.post('/license/delete', { license_key: license.key }, owner.auth);
  });

  it('answers 404 LICENSE_NOT_FOUND for a missing key and 400 naming license_key without one', async () => {
    const missing = await env.post('/license/get', { license_key: 'NO-SUCH-KEY' }, owner.auth);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'License not found', error_code: 'LICENSE_NOT_FOUND' });

    const bad = await env.post('/license/get', {}, owner.auth);
    expect(bad.status).toBe(400);
    expect(bad.body.error.startsWith('license_key: ')).toBe(true);
  });
});

describe('POST /license/get-bulk', () => {
  it('lists newest first by default, 25 a page, with next_cursor null on the last page', async () => {
    const response = await env.post('/license/get-bulk', { app_id: owner.app_id }, owner.auth);

    expect(response.status).toBe(200);
    expect(keysOf(response.body.data)).toEqual(keysOf(newestFirst()));
    expect(response.body.next_cursor).toBeNull();
    expect(response.body.data[0]).toMatchObject({ subscription_name: expect.any(String), app_id: owner.app_id });
  });

  it('walks every page in ascending order, each page but the last holding exactly per_page', async () => {
    const { licenses, pageSizes } = await listAllLicenses(env, owner, { app_id: owner.app_id, per_page: 5, sort_order: 'asc', sort_field: 'created_at' });

    expect(pageSizes).toEqual([5, 5, 5, 5, 3]);
    expect(keysOf(licenses)).toEqual(keysOf(seeded));
  });

  it('fills every page to per_page under filters, even when matches are sparse', async () => {
    const { licenses, pageSizes } = await listAllLicenses(env, owner, { app_id: owner.app_id, status: 'active', subscription_id: gold.subscription_id, per_page: 2 });

    const expected = newestFirst().filter((license) => license.status === 'active' && license.subscription_id === gold.subscription_id);
    expect(keysOf(licenses)).toEqual(keysOf(expected));
    expect(pageSizes.slice(0, -1).every((size) => size === 2)).toBe(true);
    expect(pageSizes.at(-1)).toBeGreaterThan(0);
  });

  it('filters by tag', async () => {
    const { licenses } = await listAllLicenses(env, owner, { app_id: owner.app_id, tag: 'vip', per_page: 4 });
    expect(keysOf(licenses)).toEqual(keysOf(newestFirst().filter((license) => license.tags.includes('vip'))));
  });

  it('ends with next_cursor null when the matches fill the last page exactly', async () => {
    const response = await env.post('/license/get-bulk', { app_id: owner.app_id, per_page: 23 }, owner.auth);
    expect(response.body.data).toHaveLength(23);
    expect(response.body.next_cursor).toBeNull();
  });

  it.each([
    ['per_page is 0', { per_page: 0 }, 'per_page'],
    ['per_page is 101', { per_page: 101 }, 'per_page'],
    ['sort_field is neither created_at nor expires_at', { sort_field: 'last_login' }, 'sort_field'],
    ['sort_order is sideways', { sort_order: 'sideways' }, 'sort_order'],
    ['status is unknown', { status: 'banned' }, 'status'],
    ['the cursor was not issued by the API', { cursor: 'bm90LWEtY3Vyc29y' }, 'cursor'],
    ['the cursor is not base64url JSON', { cursor: '%%%' }, 'cursor'],
  ])('answers 400 INVALID_INPUT naming the field when %s', async (_case, change, field) => {
    const response = await env.post('/license/get-bulk', { app_id: owner.app_id, ...change }, owner.auth);
    expect(response.status).toBe(400);
    expect(response.body.error_code).toBe('INVALID_INPUT');
    expect(response.body.error.startsWith(`${field}: `)).toBe(true);
  });

  it('answers 404 APP_NOT_FOUND for an unknown app and 400 for a subscription of another app', async () => {
    const noApp = await env.post('/license/get-bulk', { app_id: '5b0c3a52-8f3e-4c8e-9b7e-000000000000' }, owner.auth);
    expect(noApp.status).toBe(404);
    expect(noApp.body.error_code).toBe('APP_NOT_FOUND');

    const { app_id } = await createApp(env.deps, { teamId: owner.team_id });
    const otherApp = await env.post('/license/get-bulk', { app_id, subscription_id: gold.subscription_id }, owner.auth);
    expect(otherApp.status).toBe(400);
    expect(otherApp.body.error.startsWith('subscription_id: ')).toBe(true);
  });
});
