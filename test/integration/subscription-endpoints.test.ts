import type { Clock } from '#shared/clock';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createOwner, withOwner } from '../support/owners';
import * as licenses from '#data/license.repo';
import * as subscriptions from '#data/subscription.repo';

let now = new Date('2026-04-01T08:00:00.000Z');
const clock: Clock = { now: () => now };

const { env, owner } = withOwner({ clock });

const post = (path: string, body: unknown) => env.post(path, body, owner.auth);
const unknownId = '00000000-0000-4000-8000-000000000000';

describe('/subscription/create', () => {
  it('creates an active subscription and answers its record without the owning team', async () => {
    const response = await post('/subscription/create', { app_id: owner.app_id, name: 'Pro', level: 3, single_key_per_hwid: true });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: {
        subscription_id: expect.any(String),
        app_id: owner.app_id,
        name: 'Pro',
        level: 3,
        single_key_per_hwid: true,
        status: 'active',
        created_at: now.toISOString(),
        features: [],
        usage_limits: {},
        grace_seconds: 0,
      },
    });
    const stored = await subscriptions.get(env.deps.table, response.body.data.subscription_id);
    expect(stored).toEqual({ ...response.body.data, team_id: owner.team_id });
  });

  it('defaults single_key_per_hwid to false', async () => {
    const response = await post('/subscription/create', { app_id: owner.app_id, name: 'Free', level: 0 });

    expect(response.body.data.single_key_per_hwid).toBe(false);
  });

  it('answers 404 APP_NOT_FOUND for an app that does not exist', async () => {
    const response = await post('/subscription/create', { app_id: unknownId, name: 'Pro', level: 1 });

    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'Application not found', error_code: 'APP_NOT_FOUND' });
  });

  it.each([
    ['app_id', 'is not a UUID', { app_id: 'nope', name: 'Pro', level: 1 }],
    ['name', 'is missing', { level: 1 }],
    ['name', 'is blank', { name: '   ', level: 1 }],
    ['name', 'is longer than 100 characters', { name: 'n'.repeat(101), level: 1 }],
    ['level', 'is negative', { name: 'Pro', level: -1 }],
    ['level', 'is over 1000000', { name: 'Pro', level: 1_000_001 }],
    ['level', 'is fractional', { name: 'Pro', level: 1.5 }],
    ['single_key_per_hwid', 'is not a boolean', { name: 'Pro', level: 1, single_key_per_hwid: 'yes' }],
  ])('answers 400 INVALID_INPUT naming %s when it %s', async (field, _case, body) => {
    const response = await post('/subscription/create', { app_id: owner.app_id, ...body });

    expect(response.status).toBe(400);
    expect(response.body.error_code).toBe('INVALID_INPUT');
    expect(response.body.error.startsWith(`${field}:`)).toBe(true);
  });
});

describe('/subscription/edit', () => {
  it('changes only the fields sent', async () => {
    const subscription = await seedSubscription(env.deps, owner, { name: 'Old', level: 1, single_key_per_hwid: false });

    const response = await post('/subscription/edit', { subscription_id: subscription.subscription_id, name: 'New', status: 'inactive' });

    expect(response.status).toBe(200);
    const { team_id: _team, ...view } = subscription;
    // A tier stored before entitlements existed shows none of them, and no grace.
    expect(response.body.data).toEqual({ ...view, name: 'New', status: 'inactive', features: [], usage_limits: {}, grace_seconds: 0 });
    expect(await subscriptions.get(env.deps.table, subscription.subscription_id)).toEqual({ ...subscription, name: 'New', status: 'inactive' });
  });

  it('changes level and single_key_per_hwid, and reactivates', async () => {
    const subscription = await seedSubscription(env.deps, owner, { status: 'inactive' });

    const response = await post('/subscription/edit', {
      subscription_id: subscription.subscription_id,
      level: 9,
      single_key_per_hwid: true,
      status: 'active',
    });

    expect(response.body.data).toMatchObject({ level: 9, single_key_per_hwid: true, status: 'active' });
  });

  it('answers 400 INVALID_INPUT when no field to change is sent', async () => {
    const subscription = await seedSubscription(env.deps, owner);

    const response = await post('/subscription/edit', { subscription_id: subscription.subscription_id });

    expect(response.status).toBe(400);
    expect(response.body.error_code).toBe('INVALID_INPUT');
  });

  it.each([
    ['status', { status: 'paused' }],
    ['name', { name: '' }],
    ['level', { level: 'high' }],
  ])('answers 400 INVALID_INPUT naming %s when it is not a valid value', async (field, change) => {
    const subscription = await seedSubscription(env.deps, owner);

    const response = await post('/subscription/edit', { subscription_id: subscription.subscription_id, ...change });

    expect(response.status).toBe(400);
    expect(response.body.error.startsWith(`${field}:`)).toBe(true);
  });

  it('answers 404 SUBSCRIPTION_NOT_FOUND for an unknown subscription and creates none', async () => {
    const response = await post('/subscription/edit', { subscription_id: unknownId, name: 'Ghost' });

    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'Subscription not found', error_code: 'SUBSCRIPTION_NOT_FOUND' });
    expect(await subscriptions.get(env.deps.table, unknownId)).toBeUndefined();
  });
});

describe('/subscription/delete', () => {
  it('deletes the subscription and leaves its licenses in place, without a tier', async () => {
    const subscription = await seedSubscription(env.deps, owner);
    const license = await seedLicense(env.deps, subscription);

    const response = await post('/subscription/delete', { subscription_id: subscription.subscription_id });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, data: { subscription_id: subscription.subscription_id, deleted: true } });
    expect(await subscriptions.get(env.deps.table, subscription.subscription_id)).toBeUndefined();
    const kept = await licenses.get(env.deps.table, license.key, license.team_id);
    expect(kept?.subscription_id).toBe(subscription.subscription_id);
  });

  it('answers 404 SUBSCRIPTION_NOT_FOUND the second time', async () => {
    const subscription = await seedSubscription(env.deps, owner);
    await post('/subscription/delete', { subscription_id: subscription.subscription_id });

    const again = await post('/subscription/delete', { subscription_id: subscription.subscription_id });

    expect(again.status).toBe(404);
    expect(again.body.error_code).toBe('SUBSCRIPTION_NOT_FOUND');
  });

  it('answers 400 INVALID_INPUT naming subscription_id when it is missing', async () => {
    const response = await post('/subscription/delete', {});

    expect(response.status).toBe(400);
    expect(response.body.error.startsWith('subscription_id:')).toBe(true);
  });
});

describe('/subscription/get-bulk', () => {
  it('lists the app’s subscriptions oldest first, in one page', async () => {
    const other = await createOwner(env.deps);
    const created = [];
    for (const [index, name] of ['Bronze', 'Silver', 'Gold'].entries()) {
      now = new Date(Date.parse('2026-05-01T00:00:00.000Z') + index * 1000);
      created.push((await env.post('/subscription/create', { app_id: other.app_id, name, level: index }, other.auth)).body.data);
    }

    const response = await env.post('/subscription/get-bulk', { app_id: other.app_id }, other.auth);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, data: created, next_cursor: null });
  });

  it('answers an empty list for an app without subscriptions', async () => {
    const fresh = await createOwner(env.deps);

    const response = await env.post('/subscription/get-bulk', { app_id: fresh.app_id }, fresh.auth);

    expect(response.body).toEqual({ success: true, data: [], next_cursor: null });
  });

  it('answers 404 APP_NOT_FOUND for an unknown app and 400 naming app_id for a malformed one', async () => {
    const unknown = await post('/subscription/get-bulk', { app_id: unknownId });
    const malformed = await post('/subscription/get-bulk', { app_id: 42 });

    expect(unknown.status).toBe(404);
    expect(unknown.body.error_code).toBe('APP_NOT_FOUND');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.startsWith('app_id:')).toBe(true);
  });
});
