import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#data/keys';
import type { Subscription } from '#data/model/subscription';
import { createFakeClock } from '../support/clock';
import { seedSubscription } from '../support/fixtures';
import { checkInvariants, scanAll } from '../support/invariants';
import { createOwner, madeBeforeAll, withOwner, type Owner } from '../support/owners';
import * as licenses from '#data/license.repo';
import * as teams from '#data/team.repo';
import * as apps from '#data/app.repo';

/** POST /trial and the `trial` setting (docs/client-api.md#post-trial, docs/management-api.md#trials), through the local server. */
const clock = createFakeClock(new Date('2026-05-04T10:00:00.000Z'));
const { env, owner } = withOwner({ clock, config: { cacheTtlSeconds: 0 } });
const tier = madeBeforeAll(() => seedSubscription(env.deps, owner, { name: 'Trial', level: 1, features: ['reports'] }));

const settings = (body: Record<string, unknown>, as: Owner = owner) => env.post('/app/settings', { app_id: as.app_id, ...body }, as.auth);
const trial = (body: Record<string, unknown>, as: Pick<Owner, 'app_id'> = owner, headers: Record<string, string> = {}) => env.post('/trial', { app_id: as.app_id, ...body }, headers);
const day = 86400;

/** An application of its own with trials on: the per-address count is per application, and tests all come from 127.0.0.1. */
async function trialApp(trialSettings: Record<string, unknown> = {}, subscription: Partial<Subscription> = {}) {
  const made = await createOwner(env.deps);
  const sub = await seedSubscription(env.deps, made, { name: 'Trial', level: 1, ...subscription });
  const answer = await settings({ trial: { subscription_id: sub.subscription_id, duration_seconds: 14 * day, per_ip_per_day: 1000, ...trialSettings } }, made);
  expect(answer.status).toBe(200);
  return { owner: made, subscription: sub };
}

const itemsOf = async (appId: string) => (await scanAll(env.deps.table)).filter((item) => item.app_id === appId || String(item.pk).startsWith(`APP#${appId}`));
const trialLicenses = async (appId: string) => (await scanAll(env.deps.table)).filter((item) => item.sk === 'LIC' && item.app_id === appId);

describe('the trial setting', () => {
  it('is null until set, takes its defaults, is answered as stored, and null turns it off', async () => {
    expect((await settings({})).body.data.trial).toBeNull();
    const set = await settings({ trial: { subscription_id: tier.subscription_id, duration_seconds: 3600 } });
    expect(set.status).toBe(200);
    expect(set.body.data.trial).toEqual({ subscription_id: tier.subscription_id, duration_seconds: 3600, max_devices: 1, per_ip_per_day: 5 });
    const full = { subscription_id: tier.subscription_id, duration_seconds: 7_776_000, max_devices: 2, features: ['sync', 'export', 'sync'], per_ip_per_day: 1000 };
    expect((await settings({ trial: full })).body.data.trial).toEqual({ ...full, features: ['export', 'sync'] });
    expect((await settings({})).body.data.trial).toEqual({ ...full, features: ['export', 'sync'] });
    expect((await settings({ trial: null })).body.data.trial).toBeNull();
    expect((await apps.get(env.deps.table, owner.app_id))!.trial).toBeNull();
  });

  it.each([
    [{ duration_seconds: 3599 }, 'trial.duration_seconds'],
    [{ duration_seconds: 7_776_001 }, 'trial.duration_seconds'],
    [{ duration_seconds: 3600.5 }, 'trial.duration_seconds'],
    [{ per_ip_per_day: 0 }, 'trial.per_ip_per_day'],
    [{ per_ip_per_day: 1001 }, 'trial.per_ip_per_day'],
    [{ max_devices: 0 }, 'trial.max_devices'],
    [{ max_devices: 101 }, 'trial.max_devices'],
    [{ features: ['Not A Name'] }, 'trial.features.0'],
    [{ subscription_id: 'nope' }, 'trial.subscription_id'],
    [{ seats: 2 }, 'trial.seats'],
  ])('refuses %j with 400 INVALID_INPUT naming %s, and changes nothing', async (change, field) => {
    await settings({ trial: null });
    const answer = await settings({ trial: { subscription_id: tier.subscription_id, duration_seconds: 3600, ...change } });
    expect(answer.status).toBe(400);
    expect(answer.body.error_code).toBe('INVALID_INPUT');
    expect(answer.body.error).toMatch(new RegExp(`^${field.replace(/\./g, '\\.')}[:.]`));
    expect((await apps.get(env.deps.table, owner.app_id))!.trial).toBeNull();
  });

  it('takes only a subscription of this application: another app’s is 400, an unknown one 404, another team’s 403', async () => {
    const sibling = await env.post('/app/create', { name: 'Sibling' }, owner.auth);
    const siblingTier = await seedSubscription(env.deps, { ...owner, app_id: sibling.body.data.app_id }, { name: 'Other app' });
    const elsewhere = await settings({ trial: { subscription_id: siblingTier.subscription_id, duration_seconds: 3600 } });
    expect([elsewhere.status, elsewhere.body]).toEqual([400, { error: 'trial.subscription_id: must belong to the application', error_code: 'INVALID_INPUT' }]);
    const unknown = await settings({ trial: { subscription_id: '00000000-0000-4000-8000-000000000000', duration_seconds: 3600 } });
    expect([unknown.status, unknown.body.error_code]).toEqual([404, 'SUBSCRIPTION_NOT_FOUND']);
    const stranger = await createOwner(env.deps);
    const foreign = await seedSubscription(env.deps, stranger);
    const denied = await settings({ trial: { subscription_id: foreign.subscription_id, duration_seconds: 3600 } });
    expect([denied.status, denied.body.error_code]).toEqual([403, 'ACCESS_DENIED']);
    expect((await apps.get(env.deps.table, owner.app_id))!.trial ?? null).toBeNull();
  });
});

describe('POST /trial', () => {
  it('starts a trial: a license tagged trial, in use from now for the duration, locked to the device, with the trial’s tier and features', async () => {
    const { owner: app, subscription } = await trialApp({ max_devices: 2, features: ['export'] }, { features: ['reports'] });
    const started = await trial({ hwid: 'pc-start', nonce: 'trial-nonce-0001' }, app);

    expect(started.status).toBe(200);
    expect(started.body.message).toBe('TRIAL_STARTED');
    expect(started.headers.get('signature-input')).toContain('nonce="trial-nonce-0001"');
    const key = started.body.data.license;
    const now = clock.now().toISOString();
    const ends = new Date(clock.now().getTime() + 14 * day * 1000).toISOString();
    expect(started.body.data).toEqual({
      key,
      license: key,
      created_at: now,
      expires_at: ends,
      initial_duration: String(14 * day),
      first_used_at: now,
      hwid_lock: true,
      last_hwid_reset_at: null,
      hwid_reset_cooldown: 0,
      hwid_reset_allowed: true,
      username: null,
      last_login: now,
      subscription_level: 1,
      subscription_name: 'Trial',
      hwids: ['pc-start'],
      max_devices: 2,
      features: ['export', 'reports'],
    });
    const stored = await licenses.get(env.deps.table, key, app.team_id);
    expect(stored).toMatchObject({
      subscription_id: subscription.subscription_id,
      tags: ['trial'],
      status: 'active',
      hwid: 'pc-start',
      hwids: ['pc-start'],
      hwid_lock: true,
      first_used_at: now,
      expires_at: ends,
      features: ['export'],
      max_devices: 2,
      metadata: {},
    });
    const claim = (await itemsOf(app.app_id)).find((item) => item.sk === keys.trialClaim(app.app_id, 'pc-start').sk);
    expect(claim).toMatchObject({ license_key: key, hwid: 'pc-start', expires_at: ends });
    // The same key checks as any license from then on.
    const checked = await env.post('/auth', { app_id: app.app_id, license: key, hwid: 'pc-start' });
    expect(checked.body.message).toBe('LICENSE_VERIFIED_USED_AND_LOCKED_KEY');
  });

  it('resumes the device’s trial with the same key, as an /auth of it, without counting it against the address', async () => {
    const { owner: app } = await trialApp({ per_ip_per_day: 1 });
    const started = await trial({ hwid: 'pc-resume' }, app);
    clock.advance(60);
    const resumed = await trial({ hwid: 'pc-resume' }, app);

    expect(resumed.status).toBe(200);
    expect(resumed.body.message).toBe('TRIAL_RESUMED');
    expect(resumed.body.data).toEqual({ ...started.body.data, last_login: clock.now().toISOString() });
    // The address's one start of the last 24 hours was this device's: a resume is no start, and another device is refused.
    expect((await trial({ hwid: 'pc-resume' }, app)).body.message).toBe('TRIAL_RESUMED');
    expect((await trial({ hwid: 'pc-other' }, app)).body).toEqual({ success: false, message: 'TRIAL_LIMIT_REACHED' });
    expect(await trialLicenses(app.app_id)).toHaveLength(1);
  });

  it('answers TRIAL_EXPIRED with the end once the trial ended, and after its license was deleted; the device never gets a second one', async () => {
    const { owner: app } = await trialApp({ duration_seconds: 3600 });
    const started = await trial({ hwid: 'pc-ends' }, app);
    const ends = started.body.data.expires_at;
    clock.advance(3600);
    const ended = await trial({ hwid: 'pc-ends' }, app);
    expect([ended.status, ended.body]).toEqual([403, { success: false, message: 'TRIAL_EXPIRED', data: { expires_at: ends } }]);
    clock.advance(-3600);

    const deleted = await env.post('/license/delete', { license_key: started.body.data.license }, app.auth);
    expect(deleted.status).toBe(200);
    const gone = await trial({ hwid: 'pc-ends' }, app);
    expect([gone.status, gone.body]).toEqual([403, { success: false, message: 'TRIAL_EXPIRED', data: { expires_at: ends } }]);
    expect(await trialLicenses(app.app_id)).toHaveLength(0);
  });

  it('answers TRIAL_CONVERTED, with no key, once the trial was bought', async () => {
    const { owner: app } = await trialApp();
    const started = await trial({ hwid: 'pc-bought' }, app);
    await env.deps.table.doc.send(
      new UpdateCommand({ TableName: env.deps.table.name, Key: keys.license(started.body.data.license), UpdateExpression: 'SET tags = :tags', ExpressionAttributeValues: { ':tags': ['stripe', 'trial-converted'] } }),
    );
    const bought = await trial({ hwid: 'pc-bought' }, app);
    expect([bought.status, bought.body]).toEqual([403, { success: false, message: 'TRIAL_CONVERTED' }]);
  });

  it('counts an address’s starts over the last 24 hours: per_ip_per_day starts, then TRIAL_LIMIT_REACHED until the first is 24 hours old', async () => {
    const { owner: app } = await trialApp({ per_ip_per_day: 2 });
    expect((await trial({ hwid: 'window-1' }, app)).body.message).toBe('TRIAL_STARTED');
    clock.advance(3600);
    expect((await trial({ hwid: 'window-2' }, app)).body.message).toBe('TRIAL_STARTED');
    const refused = await trial({ hwid: 'window-3' }, app);
    expect([refused.status, refused.body]).toEqual([403, { success: false, message: 'TRIAL_LIMIT_REACHED' }]);
    clock.advance(day - 3600);
    expect((await trial({ hwid: 'window-3' }, app)).body.message).toBe('TRIAL_LIMIT_REACHED');
    clock.advance(1);
    expect((await trial({ hwid: 'window-3' }, app)).body.message).toBe('TRIAL_STARTED');
    const startedAt = clock.now().getTime() / 1000;
    clock.advance(-day - 1);
    // One item for the address: its starts of the last 24 hours (the first dropped), stored only as a hash, gone 24 hours after its newest.
    const recorded = (await itemsOf(app.app_id)).filter((item) => String(item.sk).startsWith('TRIALIP#'));
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ starts: [startedAt - day + 3600 - 1, startedAt], ttl: startedAt + day });
    expect(JSON.stringify(recorded)).not.toContain('127.0.0.1');
  });

  it('refuses a start 23 h 59 min after the first of per_ip_per_day starts and allows one 24 h 1 s after it, across a UTC midnight', async () => {
    const { owner: app } = await trialApp({ per_ip_per_day: 5 });
    const before = clock.now();
    clock.set(new Date('2026-05-04T22:30:00.000Z'));
    try {
      expect((await trial({ hwid: 'midnight-1' }, app)).body.message).toBe('TRIAL_STARTED');
      // Four more, three of them after midnight: a count per UTC day would let the next day start five again.
      for (const [index, at] of ['2026-05-04T23:00:00.000Z', '2026-05-05T00:30:00.000Z', '2026-05-05T01:00:00.000Z', '2026-05-05T02:00:00.000Z'].entries()) {
        clock.set(new Date(at));
        expect((await trial({ hwid: `midnight-${index + 2}` }, app)).body.message).toBe('TRIAL_STARTED');
      }
      clock.set(new Date('2026-05-05T22:29:00.000Z'));
      const refused = await trial({ hwid: 'midnight-6' }, app);
      expect([refused.status, refused.body]).toEqual([403, { success: false, message: 'TRIAL_LIMIT_REACHED' }]);
      clock.set(new Date('2026-05-05T22:30:01.000Z'));
      expect((await trial({ hwid: 'midnight-6' }, app)).body.message).toBe('TRIAL_STARTED');
      expect((await trial({ hwid: 'midnight-7' }, app)).body.message).toBe('TRIAL_LIMIT_REACHED');
      expect(await trialLicenses(app.app_id)).toHaveLength(6);
    } finally {
      clock.set(before);
    }
  });

  it('checks in order: the application, the blacklists, the application active, the team, trials configured, then the tier', async () => {
    const { owner: app, subscription } = await trialApp();
    expect((await trial({ hwid: 'pc' }, { app_id: '00000000-0000-4000-8000-000000000000' })).body.message).toBe('INVALID_APP_ID');
    await env.post('/blacklist/add', { app_id: app.app_id, type: 'hwid', value: 'banned-pc' }, app.auth);
    expect((await trial({ hwid: 'banned-pc' }, app)).body.message).toBe('HWID_BLACKLISTED');
    await env.post('/blacklist/add', { app_id: app.app_id, type: 'ip', value: '127.0.0.1' }, app.auth);
    expect((await trial({ hwid: 'banned-pc' }, app)).body.message).toBe('IP_BLACKLISTED');
    await env.post('/blacklist/delete', { app_id: app.app_id, type: 'ip', value: '127.0.0.1' }, app.auth);
    await apps.update(env.deps.table, app.app_id, { status: 'inactive' });
    expect((await trial({ hwid: 'pc' }, app)).body.message).toBe('APPLICATION_NOT_ACTIVE');
    await apps.update(env.deps.table, app.app_id, { status: 'active' });
    await teams.setPlanExpiry(env.deps.table, app.team_id, '2020-01-01T00:00:00.000Z');
    expect((await trial({ hwid: 'pc' }, app)).body.message).toBe('TEAM_ERROR');
    await teams.setPlanExpiry(env.deps.table, app.team_id, null);
    await env.post('/subscription/edit', { subscription_id: subscription.subscription_id, status: 'inactive' }, app.auth);
    expect((await trial({ hwid: 'pc' }, app)).body.message).toBe('SUBSCRIPTION_NOT_ACTIVE');
    await env.post('/subscription/delete', { subscription_id: subscription.subscription_id }, app.auth);
    expect((await trial({ hwid: 'pc' }, app)).body.message).toBe('SUBSCRIPTION_ERROR');
    await settings({ trial: null }, app);
    expect((await trial({ hwid: 'pc' }, app)).body).toEqual({ success: false, message: 'TRIALS_DISABLED' });
    expect(await trialLicenses(app.app_id)).toHaveLength(0);
  });

  it('refuses bad input with the documented 400, writing nothing', async () => {
    const { owner: app } = await trialApp();
    const before = await itemsOf(app.app_id);
    const cases: [unknown, string][] = [
      ['{"app_id":', 'Invalid JSON in request body'],
      [{ hwid: 'pc' }, 'App ID is required'],
      [{ app_id: 'not-a-uuid', hwid: 'pc' }, 'Invalid App ID format (must be a valid UUID)'],
      [{ app_id: app.app_id }, 'Invalid hwid'],
      [{ app_id: app.app_id, hwid: '' }, 'Invalid hwid'],
      [{ app_id: app.app_id, hwid: null }, 'Invalid hwid'],
      [{ app_id: app.app_id, hwid: 42 }, 'Invalid hwid'],
      [{ app_id: app.app_id, hwid: ['pc'] }, 'Invalid hwid'],
      [{ app_id: app.app_id, hwid: { pc: 1 } }, 'Invalid hwid'],
      [{ app_id: app.app_id, hwid: 'x'.repeat(10 * 1024) }, 'Invalid hwid'],
      [{ app_id: app.app_id, hwid: 'x'.repeat(257) }, 'Invalid hwid'],
      [{ app_id: app.app_id, hwid: '__proto__' }, 'Invalid hwid'],
      [{ app_id: app.app_id, hwid: 'pc', nonce: 'bad nonce!' }, 'Invalid nonce'],
    ];
    for (const [body, message] of cases) {
      const answer = await env.post('/trial', body);
      expect([answer.status, answer.body]).toEqual([400, { success: false, message }]);
    }
    const unknown = await trial({ hwid: 'pc' }, { app_id: '00000000-0000-4000-8000-000000000000' });
    expect([unknown.status, unknown.body]).toEqual([403, { success: false, message: 'INVALID_APP_ID' }]);
    expect(await itemsOf(app.app_id)).toEqual(before);
    // 256 characters is an HWID like any other.
    expect((await trial({ hwid: 'y'.repeat(256) }, app)).body.message).toBe('TRIAL_STARTED');
  });

  it('claims the device in the HWID index under single_key_per_hwid: a device bound to another license is refused', async () => {
    const { owner: app, subscription } = await trialApp({}, { single_key_per_hwid: true });
    const started = await trial({ hwid: 'pc-single' }, app);
    const index = (await itemsOf(app.app_id)).find((item) => item.sk === keys.hwid(app.app_id, 'pc-single').sk);
    expect(index).toMatchObject({ license_key: started.body.data.license });
    const bought = await env.post('/license/create', { app_id: app.app_id, subscription_id: subscription.subscription_id, duration_unit: 'days', duration_value: 30, hwid_lock: true }, app.auth);
    expect((await env.post('/auth', { app_id: app.app_id, license: bought.body.data.key, hwid: 'pc-taken' })).status).toBe(200);
    const taken = await trial({ hwid: 'pc-taken' }, app);
    expect([taken.status, taken.body]).toEqual([403, { success: false, message: 'DEVICE_ALREADY_REGISTERED_WITH_OTHER_LICENSE' }]);
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });
});
