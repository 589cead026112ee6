import { forRequest } from '#core/deps';
import { sha256Hex } from '#core/ids';
import * as owners from '../../functions/admin/owners';
import type { EventType } from '../../functions/events/derive';
import { startTestEvents, type TestEvents } from '../support/events';
import { startTestServer, type TestServer } from '../support/env';
import { createOwner, type Owner } from '../support/owners';
import * as apps from '#data/app.repo';
import * as blacklist from '#data/blacklist.repo';

let env: TestServer;
let events: TestEvents;
let owner: Owner;
let actor: string;

beforeAll(async () => {
  env = await startTestServer();
  events = await startTestEvents(env);
  owner = await createOwner(env.deps);
  actor = `api_key:${sha256Hex(owner.api_key).slice(0, 8)}`;
});
afterAll(async () => {
  await events.stop();
  await env.close();
});

/** Runs an operation, consumes the stream, and returns the events it produced. */
async function eventsOf(operation: () => Promise<{ status: number; body: any }>) {
  const seen = events.delivered.length;
  const response = await operation();
  expect(response.status).toBe(200);
  await events.drain();
  return events.delivered.slice(seen);
}

const types = (produced: { type: EventType }[]) => produced.map((event) => event.type);

/** Nothing secret, whatever the entity: no password, hash or private key, at any depth. */
function expectNoSecrets(value: unknown) {
  expect(JSON.stringify(value)).not.toMatch(/password|hash|private|\$2[aby]\$/i);
}

describe('events of license, subscription and blacklist changes', () => {
  const manageStep = (path: string, body: Record<string, unknown>) => () => env.post(path, body, owner.auth);

  /** A floating license made through the routes, its events consumed, and a sender of a device's /auth on it. */
  async function floatingLicense(tierName: string, maxDevices: number) {
    await events.drain();
    const tier = await eventsOf(manageStep('/subscription/create', { app_id: owner.app_id, name: tierName, level: 1 }));
    const created = await eventsOf(
      manageStep('/license/create', { app_id: owner.app_id, subscription_id: tier[0]!.subject, duration_unit: 'days', duration_value: 30, hwid_lock: true, lease_seconds: 3600, max_devices: maxDevices }),
    );
    const key = created[0]!.subject;
    return { key, auth: (hwid: string) => () => env.post('/auth', { app_id: owner.app_id, license: key, hwid }) };
  }

  it('announces a trial started by its device as created, trial_started and activated, by the client, and its resumption as nothing', async () => {
    // An application of its own, which no client request has read (and cached) before trials are turned on.
    const trialOwner = await createOwner(env.deps);
    const tier = await env.post('/subscription/create', { app_id: trialOwner.app_id, name: 'Trial', level: 1 }, trialOwner.auth);
    const on = await env.post('/app/settings', { app_id: trialOwner.app_id, trial: { subscription_id: tier.body.data.subscription_id, duration_seconds: 3600 } }, trialOwner.auth);
    expect(on.status).toBe(200);
    await events.drain();
    const trial = () => env.post('/trial', { app_id: trialOwner.app_id, hwid: 'events-trial-pc' });
    const started = await eventsOf(trial);
    expect(started.map((event) => [event.type, event.actor])).toEqual([
      ['license.created', 'client'],
      ['license.trial_started', 'client'],
      ['license.activated', 'client'],
    ]);
    expect(new Set(started.map((event) => event.subject)).size).toBe(1);
    expect(types(await eventsOf(trial))).toEqual([]);
  });

  it('announces floating seats taken and released, and no renewal', async () => {
    const { key, auth } = await floatingLicense('Floating', 2);

    expect(types(await eventsOf(auth('seat-1')))).toEqual(['license.activated', 'license.seat_taken']);
    expect(types(await eventsOf(auth('seat-2')))).toEqual(['license.seat_taken']);
    expect(await eventsOf(auth('seat-1'))).toEqual([]);
    const released = await eventsOf(() => env.post('/release', { app_id: owner.app_id, license: key, hwid: 'seat-1' }));
    expect(released).toMatchObject([{ type: 'license.seat_released', actor: 'client', subject: key }]);
    expect(types(await eventsOf(manageStep('/hwid/remove', { license_key: key, hwid: 'seat-2' })))).toEqual(['license.seat_released']);
  });

  it('announces the seats of HWIDs named like what every object inherits, and keeps their leases in the audit log', async () => {
    const { key, auth } = await floatingLicense('Named seats', 3);

    expect(types(await eventsOf(auth('constructor')))).toEqual(['license.activated', 'license.seat_taken']);
    const later = await eventsOf(auth('toString'));
    expect(types(later)).toEqual(['license.seat_taken']);
    expect(Object.keys(later[0]!.after!.leases as object)).toEqual(expect.arrayContaining(['constructor', 'toString']));
    expect(types(await eventsOf(() => env.post('/release', { app_id: owner.app_id, license: key, hwid: 'constructor' })))).toEqual(['license.seat_released']);

    const audited = await env.post('/audit/get-bulk', { app_id: owner.app_id, license_key: key, type: 'license.seat_taken' }, owner.auth);
    expect(audited.body.data.map((event: { after: { leases: object } }) => Object.keys(event.after.leases).sort())).toEqual(
      expect.arrayContaining([['constructor'], ['constructor', 'toString']]),
    );
  });

  it('produces each event type once, from the operation that makes the change, with who made it', async () => {
    // The owner's application was announced when it was made (see the application events below).
    await events.drain();
    const manage = (path: string, body: Record<string, unknown>) => () => env.post(path, body, owner.auth);

    const subscriptionCreated = await eventsOf(manage('/subscription/create', { app_id: owner.app_id, name: 'Pro', level: 1, single_key_per_hwid: false }));
    expect(types(subscriptionCreated)).toEqual(['subscription.created']);
    const subscriptionId = subscriptionCreated[0]!.subject;
    expect(types(await eventsOf(manage('/subscription/edit', { subscription_id: subscriptionId, level: 2 })))).toEqual(['subscription.changed']);

    const created = await eventsOf(
      manage('/license/create', {
        app_id: owner.app_id,
        subscription_id: subscriptionId,
        duration_unit: 'days',
        duration_value: 30,
        hwid_lock: true,
        username: 'alice',
        password: 'password-1',
      }),
    );
    expect(types(created)).toEqual(['license.created']);
    const key = created[0]!.subject;
    expect(created[0]).toMatchObject({ app_id: owner.app_id, actor, after: { key, status: 'active', username: 'alice' } });
    expect(created[0]!.before).toBeUndefined();

    const activated = await eventsOf(() => env.post('/auth', { app_id: owner.app_id, license: key, hwid: 'device-1' }));
    expect(types(activated)).toEqual(['license.activated', 'license.hwid_bound']);
    expect(activated.every((event) => event.actor === 'client')).toBe(true);
    // A later use is counted as a login, not announced.
    expect(await eventsOf(() => env.post('/auth', { app_id: owner.app_id, license: key, hwid: 'device-1' }))).toEqual([]);

    expect(types(await eventsOf(manage('/license/extend', { license_key: key, extend_seconds: 3600 })))).toEqual(['license.extended']);
    const paused = await eventsOf(manage('/license/update-status', { license_key: key, status: 'paused' }));
    expect(types(paused)).toEqual(['license.status_changed']);
    expect(paused[0]).toMatchObject({ before: { status: 'active' }, after: { status: 'paused' } });
    expect(types(await eventsOf(manage('/hwid/edit', { license_key: key, hwid: null })))).toEqual(['license.hwid_reset']);
    expect(types(await eventsOf(manage('/license/update-user-credentials', { license_key: key, username: 'alice2' })))).toEqual([
      'license.credentials_changed',
    ]);
    const newPassword = await eventsOf(manage('/license/update-user-credentials', { license_key: key, username: 'alice2', password: 'password-2' }));
    expect(types(newPassword)).toEqual(['license.credentials_changed']);
    expectNoSecrets(newPassword);
    expect(types(await eventsOf(manage('/license/update-metadata', { license_key: key, metadata: { customer: 42 } })))).toEqual([
      'license.metadata_changed',
    ]);
    // A customer's email is a setting with no type of its own; the event shows it before and after, as the audit log keeps it.
    const emailSet = await eventsOf(manage('/license/update-email', { license_key: key, email: 'Buyer@Example.com' }));
    expect(emailSet).toMatchObject([{ type: 'license.metadata_changed', actor, after: { email: 'buyer@example.com' } }]);
    expect(emailSet[0]!.before).not.toHaveProperty('email');
    const emailRemoved = await eventsOf(manage('/license/update-email', { license_key: key, email: null }));
    expect(emailRemoved).toMatchObject([{ type: 'license.metadata_changed', before: { email: 'buyer@example.com' } }]);
    expect(emailRemoved[0]!.after).not.toHaveProperty('email');
    expect(await eventsOf(manage('/license/update-email', { license_key: key, email: null }))).toEqual([]);

    const deleted = await eventsOf(manage('/license/delete', { license_key: key }));
    expect(types(deleted)).toEqual(['license.deleted']);
    expect(deleted[0]).toMatchObject({ actor, before: { key } });
    expect(deleted[0]!.after).toBeUndefined();

    expect(types(await eventsOf(manage('/blacklist/add', { app_id: owner.app_id, type: 'ip', value: '203.0.113.9', reason: 'abuse' })))).toEqual([
      'blacklist.added',
    ]);
    const unlisted = await eventsOf(manage('/blacklist/delete', { app_id: owner.app_id, type: 'ip', value: '203.0.113.9' }));
    expect(unlisted).toMatchObject([{ type: 'blacklist.deleted', subject: 'ip:203.0.113.9', actor }]);
    expect(types(await eventsOf(manage('/subscription/delete', { subscription_id: subscriptionId })))).toEqual(['subscription.deleted']);

    expectNoSecrets(events.delivered);
    expect(new Set(events.delivered.map((event) => event.id)).size).toBe(events.delivered.length);
  });

  it('announces license files issued and returned, the device by its fingerprint, and keeps them in the audit log', async () => {
    await events.drain();
    const tier = await eventsOf(manageStep('/subscription/create', { app_id: owner.app_id, name: 'Files', level: 1 }));
    const created = await eventsOf(manageStep('/license/create', { app_id: owner.app_id, subscription_id: tier[0]!.subject, duration_unit: 'days', duration_value: 30, hwid_lock: true }));
    const key = created[0]!.subject;
    const request = `lfr1.${Buffer.from(JSON.stringify({ app_id: owner.app_id, license: key, hwid: 'files-pc', nonce: 'events-nonce-01' })).toString('base64url')}`;

    const issued = await eventsOf(() => env.post('/license-file', { request }));
    const file = issued.find((event) => event.type === 'license.file_issued')!;
    const returnCode = `lfx1.${Buffer.from(JSON.stringify({ app_id: owner.app_id, license: key, hwid: 'files-pc', jti: file.after!.jti })).toString('base64url')}`;
    const returned = await eventsOf(() => env.post('/license-file/return', { request: returnCode }));

    expect(types(issued)).toEqual(['license.activated', 'license.hwid_bound', 'license.file_issued']);
    expect(file).toMatchObject({ actor: 'client', subject: key, after: { hwid: sha256Hex('files-pc').slice(0, 8), air_gapped: true, exp: expect.any(Number) } });
    expect(types(returned)).toEqual(['license.hwid_reset', 'license.file_returned']);
    expect(returned[1]).toMatchObject({ subject: key, after: { jti: file.after!.jti, air_gapped: true } });
    const audit = await env.post('/audit/get-bulk', { app_id: owner.app_id, license_key: key }, owner.auth);
    expect(audit.body.data.map((entry: { type: string }) => entry.type)).toEqual(expect.arrayContaining(['license.file_issued', 'license.file_returned']));
  });

  it('announces metered usage only at the first refusal of a period and at a reset', async () => {
    await events.drain();
    const manage = (path: string, body: Record<string, unknown>) => () => env.post(path, body, owner.auth);
    const tier = await env.post('/subscription/create', { app_id: owner.app_id, name: 'Metered', level: 1, usage_limits: { exports: { limit: 1, period: 'month' } } }, owner.auth);
    const license = await env.post('/license/create', { app_id: owner.app_id, subscription_id: tier.body.data.subscription_id, duration_unit: 'days', duration_value: 30 }, owner.auth);
    const key = license.body.data.key;
    await env.post('/auth', { app_id: owner.app_id, license: key });
    await events.drain();
    const use = () => env.post('/usage', { app_id: owner.app_id, license: key, counter: 'exports' });

    expect(await eventsOf(use)).toEqual([]);
    const refusals = async () => {
      const seen = events.delivered.length;
      expect((await use()).body.message).toBe('USAGE_LIMIT_REACHED');
      await events.drain();
      return events.delivered.slice(seen);
    };
    const first = await refusals();
    expect(first).toMatchObject([{ type: 'license.usage_limit_reached', subject: key, actor: 'client' }]);
    expect(await refusals()).toEqual([]);
    expect(types(await eventsOf(manage('/license/reset-usage', { license_key: key })))).toEqual(['license.usage_reset']);
    expect(types(await eventsOf(manage('/license/update-features', { license_key: key, features: ['sync'] })))).toEqual(['license.metadata_changed']);
  });

  it('keeps the actor out of every answer', async () => {
    const subscription = await env.post('/subscription/create', { app_id: owner.app_id, name: 'Basic', level: 1, single_key_per_hwid: false }, owner.auth);
    const license = await env.post(
      '/license/create',
      { app_id: owner.app_id, subscription_id: subscription.body.data.subscription_id, duration_unit: 'days', duration_value: 1 },
      owner.auth,
    );
    const auth = await env.post('/auth', { app_id: owner.app_id, license: license.body.data.key });
    const listed = await env.post('/license/get-bulk', { app_id: owner.app_id }, owner.auth);
    const blacklisted = await env.post('/blacklist/add', { app_id: owner.app_id, type: 'country', value: 'ZZ' }, owner.auth);
    for (const answer of [subscription, license, auth, listed, blacklisted]) expect(JSON.stringify(answer.body)).not.toContain('actor');
  });

  it('names the admin CLI, and anything written outside the API, admin', async () => {
    await events.drain();
    const seen = events.delivered.length;
    await blacklist.add(env.deps.table, { app_id: owner.app_id, type: 'hwid', value: 'cli-device', reason: null, created_at: new Date().toISOString() });
    await events.drain();
    expect(events.delivered.slice(seen)).toMatchObject([{ type: 'blacklist.added', actor: 'admin' }]);
  });
});

describe('events of application changes', () => {
  it('announces an application the admin CLI creates, changes and rotates the key of, and its settings an owner changes', async () => {
    const admin = forRequest(env.deps, undefined, 'admin');
    const seen = events.delivered.length;
    const { app_id: appId } = await owners.createApp(admin, { teamId: owner.team_id, name: 'Second' });
    await events.drain();
    const created = events.delivered.slice(seen);

    const settings = await eventsOf(() => env.post('/app/settings', { app_id: appId, offline_token_ttl: 3600 }, owner.auth));
    const before = await apps.get(env.deps.table, appId);
    const rotated = await eventsOf(async () => ({ status: 200, body: await owners.rotateAppSigningKey(admin, { appId }) }));
    const after = await apps.get(env.deps.table, appId);
    const updated = await eventsOf(async () => ({ status: 200, body: await owners.setAppStatus(admin, { appId, status: 'inactive' }) }));
    const renamed = await eventsOf(async () => ({ status: 200, body: await owners.renameApp(admin, { appId, name: 'Third' }) }));

    expect(created).toMatchObject([{ type: 'app.created', app_id: appId, subject: appId, actor: 'admin', after: { name: 'Second', status: 'active', signing_key_id: before!.signing_key!.key_id } }]);
    expect(settings).toMatchObject([{ type: 'app.settings_changed', subject: appId, actor, before: { offline_token_ttl: null }, after: { offline_token_ttl: 3600 } }]);
    expect(rotated).toEqual([
      expect.objectContaining({ type: 'app.signing_key_rotated', actor: 'admin', before: { key_id: before!.signing_key!.key_id }, after: { key_id: after!.signing_key!.key_id } }),
    ]);
    expect(updated).toMatchObject([{ type: 'app.updated', actor: 'admin', before: { status: 'active' }, after: { status: 'inactive', offline_token_ttl: 3600 } }]);
    expect(renamed).toMatchObject([{ type: 'app.updated', actor: 'admin', before: { name: 'Second' }, after: { name: 'Third', status: 'inactive' } }]);
    expectNoSecrets([created, settings, rotated, updated, renamed]);
    expect(JSON.stringify([created, rotated, updated])).not.toContain(before!.signing_key!.private_key_ciphertext);

    const audited = await env.post('/audit/get-bulk', { app_id: appId, type: 'app.settings_changed' }, owner.auth);
    expect(audited.body.data).toMatchObject([{ id: settings[0]!.id, type: 'app.settings_changed' }]);
  });
});
