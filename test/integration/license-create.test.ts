import { verifyPassword } from '#core/domain/passwords';
import { createApp } from '../../functions/admin/owners';
import { createLicensesInBulk } from '../../functions/license/create-bulk';
import { createTable } from '#data/db';
import { awsError } from '../support/dynamo-faults';
import { createTestClient } from '../support/env';
import { seedSubscription } from '../support/fixtures';
import { createInBulk, createLicenseOverHttp, listAllLicenses, scanTable } from '../support/licenses';
import { madeBeforeAll, withOwner } from '../support/owners';
import * as licenses from '#data/license.repo';
import * as usernames from '#data/username.repo';
import type { Subscription } from '#data/model/subscription';

const { env, owner } = withOwner();
const subscription = madeBeforeAll(() => seedSubscription(env.deps, owner, { name: 'Gold', level: 3 }));

const base = () => ({ app_id: owner.app_id, subscription_id: subscription.subscription_id, duration_unit: 'days', duration_value: 30 });

describe('POST /license/create', () => {
  it('creates an unused active license with the documented defaults and answers its record', async () => {
    const response = await env.post('/license/create', base(), owner.auth);

    expect(response.status).toBe(200);
    expect(response.body.success).toBe(true);
    const record = response.body.data;
    expect(record).toEqual({
      key: expect.stringMatching(/^([0-9A-HJKMNP-TV-Z]{5}-){4}[0-9A-HJKMNP-TV-Z]{5}$/),
      app_id: owner.app_id,
      subscription_id: subscription.subscription_id,
      subscription_name: 'Gold',
      subscription_level: 3,
      status: 'active',
      created_at: expect.any(String),
      expires_at: null,
      initial_duration: 30 * 86400,
      first_used_at: null,
      last_login: null,
      hwid: null,
      hwid_lock: false,
      hwid_reset_allowed: true,
      hwid_reset_interval: 0,
      last_hwid_reset_at: null,
      username: null,
      tags: [],
      metadata: {},
      features: [],
      effective_features: [],
      usage_limits: {},
      usage: [],
    });
    expect(await licenses.get(env.deps.table, record.key, record.team_id)).toMatchObject({ team_id: owner.team_id, status: 'active' });
  });

  it.each([
    ['seconds', 90, 90],
    ['weeks', 2, 14 * 86400],
    ['months', 1, 30 * 86400],
    ['years', 2, 2 * 365 * 86400],
  ])('turns %s × %i into initial_duration in seconds', async (unit, value, seconds) => {
    const record = await createLicenseOverHttp(env, owner, subscription, { duration_unit: unit, duration_value: value });
    expect(record.initial_duration).toBe(seconds);
  });

  it('stores a custom key, HWID lock, tags, metadata and credentials', async () => {
    const record = await createLicenseOverHttp(env, owner, subscription, {
      license_key: 'CUSTOM_key-0001',
      hwid_lock: true,
      tags: ['reseller', 'beta'],
      metadata: { customer: 42 },
      username: 'Alice',
      password: 'correct horse',
    });

    expect(record).toMatchObject({ key: 'CUSTOM_key-0001', hwid_lock: true, tags: ['reseller', 'beta'], metadata: { customer: 42 }, username: 'Alice' });
    expect(JSON.stringify(record)).not.toContain('password');
    const index = await usernames.get(env.deps.table, owner.app_id, 'alice');
    expect(index?.license_key).toBe('CUSTOM_key-0001');
    expect(await verifyPassword('correct horse', index!.password_hash)).toBe(true);
  });

  it('refuses a custom key that is taken with 409 LICENSE_KEY_TAKEN and leaves the holder as it was', async () => {
    const holder = await createLicenseOverHttp(env, owner, subscription, { license_key: 'taken-key-1', tags: ['first'] });

    const response = await env.post('/license/create', { ...base(), license_key: 'taken-key-1', tags: ['second'] }, owner.auth);

    expect(response.status).toBe(409);
    expect(response.body).toEqual({ error: 'License key is already taken', error_code: 'LICENSE_KEY_TAKEN' });
    expect((await licenses.get(env.deps.table, holder.key, owner.team_id))?.tags).toEqual(['first']);
  });

  it('refuses a username used in the app with 409 USERNAME_TAKEN and stores no half-made license', async () => {
    await createLicenseOverHttp(env, owner, subscription, { username: 'bob', password: 'password-1' });
    const before = await scanTable(env.deps);

    const response = await env.post('/license/create', { ...base(), license_key: 'would-be-bob', username: 'BOB', password: 'password-2' }, owner.auth);

    expect(response.status).toBe(409);
    expect(response.body.error_code).toBe('USERNAME_TAKEN');
    expect(await licenses.get(env.deps.table, 'would-be-bob', owner.team_id)).toBeUndefined();
    expect(await scanTable(env.deps)).toEqual(before);
  });

  it.each([
    ['app_id is not a UUID', { app_id: 'not-a-uuid' }, 'app_id'],
    ['subscription_id is missing', { subscription_id: undefined }, 'subscription_id'],
    ['duration_unit is unknown', { duration_unit: 'fortnights' }, 'duration_unit'],
    ['duration_value is 0', { duration_value: 0 }, 'duration_value'],
    ['duration_value is not an integer', { duration_value: 1.5 }, 'duration_value'],
    ['the duration exceeds 100 years', { duration_unit: 'years', duration_value: 101 }, 'duration_value'],
    ['a custom key is too short', { license_key: 'short' }, 'license_key'],
    ['a custom key has a space', { license_key: 'has space in it' }, 'license_key'],
    ['hwid_lock is not a boolean', { hwid_lock: 'yes' }, 'hwid_lock'],
    ['there are 21 tags', { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'tags'],
    ['a tag is 65 characters', { tags: ['x'.repeat(65)] }, 'tags.0'],
    ['metadata is an array', { metadata: [1, 2] }, 'metadata'],
    ['metadata exceeds 4 KiB', { metadata: { blob: 'x'.repeat(4100) } }, 'metadata'],
    ['a username comes without a password', { username: 'carol' }, 'password'],
    ['a password comes without a username', { password: 'password-1' }, 'username'],
    ['the username is 2 characters', { username: 'ab', password: 'password-1' }, 'username'],
    ['the password is 5 characters', { username: 'dave', password: 'short' }, 'password'],
    ['the password is 74 bytes', { username: 'dave', password: 'é'.repeat(37) }, 'password'],
  ])('answers 400 INVALID_INPUT naming the field when %s', async (_case, change, field) => {
    const response = await env.post('/license/create', { ...base(), ...change }, owner.auth);
    expect(response.status).toBe(400);
    expect(response.body.error_code).toBe('INVALID_INPUT');
    expect(response.body.error.startsWith(`${field}: `)).toBe(true);
  });

  it('answers 404 APP_NOT_FOUND and SUBSCRIPTION_NOT_FOUND for IDs that do not exist', async () => {
    const noApp = await env.post('/license/create', { ...base(), app_id: '5b0c3a52-8f3e-4c8e-9b7e-000000000000' }, owner.auth);
    expect(noApp.status).toBe(404);
    expect(noApp.body.error_code).toBe('APP_NOT_FOUND');

    const noSubscription = await env.post('/license/create', { ...base(), subscription_id: '5b0c3a52-8f3e-4c8e-9b7e-000000000000' }, owner.auth);
    expect(noSubscription.status).toBe(404);
    expect(noSubscription.body.error_code).toBe('SUBSCRIPTION_NOT_FOUND');
  });

  it('refuses a subscription of another of the owner’s apps with 400 naming subscription_id', async () => {
    const { app_id } = await createApp(env.deps, { teamId: owner.team_id });

    const response = await env.post('/license/create', { ...base(), app_id }, owner.auth);

    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/^subscription_id: /);
  });
});

describe('POST /license/create-bulk', () => {
  it('creates 1000 licenses with distinct CSPRNG keys and get-bulk counts every one back', async () => {
    const own = await seedSubscription(env.deps, owner, { name: 'Bulk' });
    const response = await createInBulk(env, owner, {
      key_amount: 1000,
      app_id: owner.app_id,
      subscription_id: own.subscription_id,
      duration_unit: 'days',
      duration_value: 7,
      hwid_lock: true,
      tags: ['batch-1'],
      request_id: 'bulk-1000',
    });

    expect(response.status).toBe(200);
    expect(response.body.data).toHaveLength(1000);
    expect(new Set(response.body.data.map((license: { key: string }) => license.key)).size).toBe(1000);
    expect(response.body.data[0]).toMatchObject({ subscription_name: 'Bulk', initial_duration: 7 * 86400, hwid_lock: true, tags: ['batch-1'] });
    const { licenses } = await listAllLicenses(env, owner, { app_id: owner.app_id, subscription_id: own.subscription_id, per_page: 100 });
    expect(licenses.map((license) => license.key).sort()).toEqual(response.body.data.map((license: { key: string }) => license.key).sort());
  // 1000 licenses, in as many sends as the time budget takes on a busy machine (at most one a chunk), then 10 pages.
  }, 300_000);

  it('answers 400 for key_amount outside 1..1000', async () => {
    for (const key_amount of [0, 1001, 2.5]) {
      const response = await env.post('/license/create-bulk', { ...base(), key_amount }, owner.auth);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatch(/^key_amount: /);
    }
  });

  it('answers 404 SUBSCRIPTION_NOT_FOUND before writing anything', async () => {
    const before = await scanTable(env.deps);
    const response = await env.post(
      '/license/create-bulk',
      { ...base(), key_amount: 5, subscription_id: '5b0c3a52-8f3e-4c8e-9b7e-000000000000' },
      owner.auth,
    );
    expect(response.status).toBe(404);
    expect(response.body.error_code).toBe('SUBSCRIPTION_NOT_FOUND');
    expect(await scanTable(env.deps)).toEqual(before);
  });
});

describe('POST /license/create-bulk when a chunk cannot be written', () => {
  const body = (subscription: Subscription, requestId: string) => ({
    teamId: owner.team_id,
    requestId,
    key_amount: 250,
    app_id: owner.app_id,
    subscription_id: subscription.subscription_id,
    duration_unit: 'days' as const,
    duration_value: 1,
    hwid_lock: false,
    tags: [],
    max_devices: 1,
    lease_seconds: null,
  });

  /**
   * The deps with a store that refuses, before sending it, the transaction of the second chunk sent
   * (known by its first item), `times` times (every time when undefined), with an error nothing retries.
   */
  function refusingSecondChunk(times?: number) {
    const client = createTestClient(env.config);
    let sends = 0;
    let refused = 0;
    let doomed: string | undefined;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
        const first = JSON.stringify((args.input as { TransactItems?: { Put?: { Item?: unknown } }[] }).TransactItems?.[0]?.Put?.Item);
        if (++sends === 2) doomed = first;
        if (first === doomed && (times === undefined || refused < times)) {
          refused++;
          throw awsError('ValidationException');
        }
        return next(args);
      },
      { step: 'initialize', name: 'refuseSecondChunk' },
    );
    const deps = { ...env.deps, table: createTable(client, env.deps.table.name) };
    return { deps, sends: () => sends };
  }

  it('sends a chunk whose transaction failed again, with the same token, and keeps every license once it is written', async () => {
    const own = await seedSubscription(env.deps, owner, { name: 'Settled' });
    const { deps, sends } = refusingSecondChunk(1);

    const created = await createLicensesInBulk(deps, body(own, 'bulk-create-settled'));

    expect(created).toHaveLength(250);
    expect(sends()).toBe(4);
    const { licenses: kept } = await listAllLicenses(env, owner, { app_id: owner.app_id, subscription_id: own.subscription_id });
    expect(kept).toHaveLength(250);
  });

  it('removes the chunks that were written and answers 500 when a chunk keeps failing, so no partial batch stays behind', async () => {
    const own = await seedSubscription(env.deps, owner, { name: 'Doomed' });
    const { deps, sends } = refusingSecondChunk();

    await expect(createLicensesInBulk(deps, body(own, 'bulk-create-cleanup'))).rejects.toMatchObject({ status: 500, code: 'SERVER_ERROR' });

    // Three chunks, and the failing one sent three times more to learn whether it was written.
    expect(sends()).toBe(6);
    const { licenses: left } = await listAllLicenses(env, owner, { app_id: owner.app_id, subscription_id: own.subscription_id });
    expect(left).toEqual([]);
  });
});
