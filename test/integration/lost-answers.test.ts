import { createDeps } from '#core/deps';
import { createLogger } from '#core/logger';
import type { Subscription } from '#data/model/subscription';
import { startLocalServer, type LocalServer } from '../../local/server';
import { createTestClient, createTestEnv, request, type TestEnv } from '../support/env';
import type { License } from '#data/model/license';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { checkInvariants, scanAll } from '../support/invariants';
import { awsError, firstOnly, injectFault, loseAnswers } from '../support/dynamo-faults';
import { createOwner, type Owner } from '../support/owners';
import * as blacklist from '#data/blacklist.repo';
import * as hwids from '#data/hwid.repo';
import * as licenses from '#data/license.repo';
import * as subscriptions from '#data/subscription.repo';
import * as usernames from '#data/username.repo';

/**
 * A write DynamoDB applied but whose answer never arrived (a timeout, a dropped
 * connection) is sent again by the SDK. Each case below loses the answer after
 * the store applied the write and checks both the answer and the end state:
 * the write counts once, and the caller hears what really happened.
 */
let env: TestEnv;
let owner: Owner;
let plain: Subscription;
let singleKey: Subscription;
const servers: LocalServer[] = [];

beforeAll(async () => {
  env = await createTestEnv({ config: { cacheTtlSeconds: 0 } });
  owner = await createOwner(env.deps);
  plain = await seedSubscription(env.deps, owner);
  singleKey = await seedSubscription(env.deps, owner, { single_key_per_hwid: true });
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  env.deps.table.doc.destroy();
});

/**
 * A local server over the test table whose client loses the answers `lose`
 * picks for `commandName`; with `inProgress`, the attempts it picks are refused
 * as DynamoDB refuses a repeat that arrives while the first attempt still runs.
 */
async function serverLosing(commandName: string, lose: (attempt: number) => boolean, inProgress?: (attempt: number) => boolean) {
  const client = createTestClient(env.config);
  // Refused before the request reaches the store; the SDK retries this error as throttling, under the same token.
  if (inProgress) injectFault(client, commandName, (attempt) => (inProgress(attempt) ? awsError('TransactionInProgressException') : undefined));
  const loss = loseAnswers(client, commandName, lose);
  const deps = createDeps(env.config, { client, keyVault: env.deps.keyVault, logger: createLogger('silent') });
  const server = await startLocalServer({ deps, port: 0 });
  servers.push(server);
  return {
    loss,
    post: (path: string, body: Record<string, unknown>, headers: Record<string, string> = owner.auth) => request(server.url, path, 'POST', body, headers),
  };
}

/** Attempts 2 to 4: every retry the SDK makes after the lost first answer (4 attempts in all). */
const untilTheSdkGivesUp = (attempt: number) => attempt >= 2 && attempt <= 4;

/** A new owner with one subscription, so that the licenses of its app are only the ones a test creates. */
async function freshOwner() {
  const fresh = await createOwner(env.deps);
  return { owner: fresh, subscription: await seedSubscription(env.deps, fresh) };
}

const createBulkBody = (fresh: { owner: Owner; subscription: Subscription }, amount: number) => ({
  app_id: fresh.owner.app_id,
  subscription_id: fresh.subscription.subscription_id,
  key_amount: amount,
  duration_unit: 'days',
  duration_value: 1,
});

const license = (seeded: License) => licenses.get(env.deps.table, seeded.key, seeded.team_id);

/** Licenses of an app, straight from the table. */
async function licensesOf(appId: string) {
  return (await scanAll(env.deps.table)).filter((item) => typeof item.pk === 'string' && item.pk.startsWith('LIC#') && item.app_id === appId);
}

describe('a write whose answer is lost after the store applied it', () => {
  it('/license/extend extends once', async () => {
    const seeded = await seedLicense(env.deps, plain);
    const faulty = await serverLosing('TransactWriteItemsCommand', firstOnly);

    const response = await faulty.post('/license/extend', { license_key: seeded.key, extend_seconds: 3600 });

    expect(faulty.loss.lost()).toBe(1);
    expect(response.status).toBe(200);
    expect(response.body.data.initial_duration).toBe(seeded.initial_duration + 3600);
    expect((await license(seeded))?.initial_duration).toBe(seeded.initial_duration + 3600);
  });

  it('/license/extend-bulk without request_id extends each key once', async () => {
    const seeded = await Promise.all([1, 2, 3].map(() => seedLicense(env.deps, plain)));
    const faulty = await serverLosing('TransactWriteItemsCommand', firstOnly);

    const response = await faulty.post('/license/extend-bulk', { license_keys: seeded.map((one) => one.key), extend_seconds: 60 });

    expect(faulty.loss.lost()).toBe(1);
    expect(response.body.data).toEqual({ succeeded: seeded.map((one) => one.key), failed: [] });
    for (const one of seeded) expect((await license(one))?.initial_duration).toBe(one.initial_duration + 60);
  });

  it('/license/extend-bulk without request_id extends each key once even when every attempt of its group loses its answer', async () => {
    const seeded = await Promise.all([1, 2, 3].map(() => seedLicense(env.deps, plain)));
    // The group's transaction is applied, then all 4 of the SDK's attempts fail: the key-by-key fallback runs.
    const faulty = await serverLosing('TransactWriteItemsCommand', (attempt) => attempt <= 4);

    const response = await faulty.post('/license/extend-bulk', { license_keys: seeded.map((one) => one.key), extend_seconds: 60 });

    expect(faulty.loss.lost()).toBe(4);
    expect(response.body.data).toEqual({ succeeded: seeded.map((one) => one.key), failed: [] });
    for (const one of seeded) expect((await license(one))?.initial_duration).toBe(one.initial_duration + 60);
  });

  it('/license/extend-bulk without request_id whose group never hears back reports its keys failed and extends each once', async () => {
    const seeded = await Promise.all([1, 2, 3].map(() => seedLicense(env.deps, plain)));
    // Applied on the first attempt; every answer lost, so the outcome stays unknown and no key-by-key work may follow.
    const faulty = await serverLosing('TransactWriteItemsCommand', () => true);

    const response = await faulty.post('/license/extend-bulk', { license_keys: seeded.map((one) => one.key), extend_seconds: 60 });

    expect(response.body.data).toEqual({ succeeded: [], failed: seeded.map((one) => ({ license_key: one.key, error_code: 'SERVER_ERROR' })) });
    for (const one of seeded) expect((await license(one))?.initial_duration).toBe(one.initial_duration + 60);
  });

  it('/license/create-bulk of 100 stores exactly the 100 licenses it answers', async () => {
    const fresh = await freshOwner();
    const faulty = await serverLosing('TransactWriteItemsCommand', firstOnly);

    const response = await faulty.post('/license/create-bulk', createBulkBody(fresh, 100), fresh.owner.auth);

    expect(faulty.loss.lost()).toBe(1);
    expect(response.status).toBe(200);
    const stored = (await licensesOf(fresh.owner.app_id)).map((item) => item.key).sort();
    expect(stored).toEqual(response.body.data.map((record: { key: string }) => record.key).sort());
    expect(stored).toHaveLength(100);
  });

  it('/license/create-bulk whose chunk hears back only when sent again with its token stores exactly the licenses it answers', async () => {
    const fresh = await freshOwner();
    const faulty = await serverLosing('TransactWriteItemsCommand', (attempt) => attempt <= 4);

    const response = await faulty.post('/license/create-bulk', createBulkBody(fresh, 100), fresh.owner.auth);

    expect(faulty.loss.lost()).toBe(4);
    expect(response.status).toBe(200);
    const stored = (await licensesOf(fresh.owner.app_id)).map((item) => item.key).sort();
    expect(stored).toEqual(response.body.data.map((record: { key: string }) => record.key).sort());
  });

  it('/license/create-bulk whose chunk never hears back removes its licenses and answers 500 that some may exist, never that none were created', async () => {
    const fresh = await freshOwner();
    const faulty = await serverLosing('TransactWriteItemsCommand', () => true);

    const response = await faulty.post('/license/create-bulk', createBulkBody(fresh, 100), fresh.owner.auth);

    expect(response.status).toBe(500);
    expect(response.body.error_code).toBe('SERVER_ERROR');
    expect(response.body.error).toMatch(/never said whether some were: some of them may exist/);
    expect(await licensesOf(fresh.owner.app_id)).toEqual([]);
  });

  it('/license/create-bulk that cannot remove what it wrote says some licenses may exist, never that none were created', async () => {
    const fresh = await freshOwner();
    const client = createTestClient(env.config);
    injectFault(client, 'BatchWriteItemCommand', () => awsError('ValidationException'));
    injectFault(client, 'TransactWriteItemsCommand', (attempt) => (attempt >= 2 ? awsError('ValidationException') : undefined));
    const server = await startLocalServer({ deps: createDeps(env.config, { client, keyVault: env.deps.keyVault, logger: createLogger('silent') }), port: 0 });
    servers.push(server);

    const response = await request(server.url, '/license/create-bulk', 'POST', createBulkBody(fresh, 200), fresh.owner.auth);

    expect(response.status).toBe(500);
    expect(response.body.error_code).toBe('SERVER_ERROR');
    expect(response.body.error).toMatch(/some of them may exist/);
    expect((await licensesOf(fresh.owner.app_id)).length).toBeGreaterThan(0);
  });

  it('/license/create with a username answers the license it stored, with no orphan beside it', async () => {
    const fresh = await freshOwner();
    const faulty = await serverLosing('TransactWriteItemsCommand', firstOnly);

    const response = await faulty.post(
      '/license/create',
      { app_id: fresh.owner.app_id, subscription_id: fresh.subscription.subscription_id, duration_unit: 'days', duration_value: 1, username: 'lost-answer-user', password: 'password-1' },
      fresh.owner.auth,
    );

    expect(faulty.loss.lost()).toBe(1);
    expect(response.status).toBe(200);
    expect((await licensesOf(fresh.owner.app_id)).map((item) => item.key)).toEqual([response.body.data.key]);
    expect(await usernames.get(env.deps.table, fresh.owner.app_id, 'lost-answer-user')).toMatchObject({ license_key: response.body.data.key });
  });

  it('/license/create with a custom key answers the license, not LICENSE_KEY_TAKEN', async () => {
    const faulty = await serverLosing('PutItemCommand', firstOnly);

    const response = await faulty.post('/license/create', {
      app_id: owner.app_id,
      subscription_id: plain.subscription_id,
      duration_unit: 'days',
      duration_value: 1,
      license_key: 'LOST-ANSWER-CUSTOM-KEY',
    });

    expect(faulty.loss.lost()).toBe(1);
    expect(response.status).toBe(200);
    expect(response.body.data.key).toBe('LOST-ANSWER-CUSTOM-KEY');
  });

  it('/license/create with a generated key stores the one license it answers', async () => {
    const fresh = await freshOwner();
    const faulty = await serverLosing('PutItemCommand', firstOnly);

    const response = await faulty.post(
      '/license/create',
      { app_id: fresh.owner.app_id, subscription_id: fresh.subscription.subscription_id, duration_unit: 'days', duration_value: 1 },
      fresh.owner.auth,
    );

    expect(faulty.loss.lost()).toBe(1);
    expect(response.status).toBe(200);
    expect((await licensesOf(fresh.owner.app_id)).map((item) => item.key)).toEqual([response.body.data.key]);
  });

  it('/hwid/toggle-lock without a value flips once', async () => {
    const seeded = await seedLicense(env.deps, plain, { hwid_lock: false });
    const faulty = await serverLosing('TransactWriteItemsCommand', firstOnly);

    const response = await faulty.post('/hwid/toggle-lock', { license_key: seeded.key });

    expect(faulty.loss.lost()).toBe(1);
    expect(response.status).toBe(200);
    expect(response.body.data.hwid_lock).toBe(true);
    expect((await license(seeded))?.hwid_lock).toBe(true);
  });

  it('/hwid/toggle-reset-allowed without a value flips once', async () => {
    const seeded = await seedLicense(env.deps, plain, { hwid_reset_allowed: true });
    const faulty = await serverLosing('TransactWriteItemsCommand', firstOnly);

    const response = await faulty.post('/hwid/toggle-reset-allowed', { license_key: seeded.key });

    expect(response.status).toBe(200);
    expect(response.body.data.hwid_reset_allowed).toBe(false);
    expect((await license(seeded))?.hwid_reset_allowed).toBe(false);
  });

  it('/license/delete answers deleted, not LICENSE_NOT_FOUND', async () => {
    const seeded = await seedLicense(env.deps, plain);
    const faulty = await serverLosing('TransactWriteItemsCommand', firstOnly);

    const response = await faulty.post('/license/delete', { license_key: seeded.key });

    expect(faulty.loss.lost()).toBe(1);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ key: seeded.key, deleted: true });
    expect(await license(seeded)).toBeUndefined();
  });

  it('a first /auth answers UNUSED, not USED', async () => {
    const seeded = await seedLicense(env.deps, plain);
    const faulty = await serverLosing('TransactWriteItemsCommand', firstOnly);

    const response = await faulty.post('/auth', { app_id: owner.app_id, license: seeded.key }, {});

    expect(faulty.loss.lost()).toBe(1);
    expect(response.status).toBe(200);
    expect(response.body.message).toBe('LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY');
    expect((await license(seeded))?.first_used_at).toBe(response.body.data.first_used_at);
  });

  it('a first /auth that binds a device answers UNUSED, with the device bound to it alone', async () => {
    const seeded = await seedLicense(env.deps, singleKey, { hwid_lock: true });
    const faulty = await serverLosing('TransactWriteItemsCommand', firstOnly);

    const response = await faulty.post('/auth', { app_id: owner.app_id, license: seeded.key, hwid: 'lost-answer-device' }, {});

    expect(faulty.loss.lost()).toBe(1);
    expect(response.body.message).toBe('LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY');
    expect(await hwids.get(env.deps.table, owner.app_id, 'lost-answer-device')).toMatchObject({ license_key: seeded.key });
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });

  it('/register answers success', async () => {
    const seeded = await seedLicense(env.deps, plain);
    const faulty = await serverLosing('TransactWriteItemsCommand', firstOnly);

    const response = await faulty.post('/register', { app_id: owner.app_id, license: seeded.key, username: 'lost-register', password: 'password-1' }, {});

    expect(response.status).toBe(200);
    expect((await license(seeded))?.username).toBe('lost-register');
  });

  it('/hwid/edit answers the new HWID', async () => {
    const seeded = await seedLicense(env.deps, singleKey, { hwid_lock: true, hwid: 'old-device' });
    const faulty = await serverLosing('TransactWriteItemsCommand', firstOnly);

    const response = await faulty.post('/hwid/edit', { license_key: seeded.key, hwid: 'lost-edit-device' });

    expect(faulty.loss.lost()).toBe(1);
    expect(response.status).toBe(200);
    expect(response.body.data.hwid).toBe('lost-edit-device');
  });

  it('/subscription/create stores the one subscription it answers', async () => {
    const subscriptionOwner = await createOwner(env.deps);
    const faulty = await serverLosing('PutItemCommand', firstOnly);

    const response = await faulty.post('/subscription/create', { app_id: subscriptionOwner.app_id, name: 'Lost', level: 1, single_key_per_hwid: false }, subscriptionOwner.auth);

    expect(faulty.loss.lost()).toBe(1);
    expect(response.status).toBe(200);
    expect((await subscriptions.listByApp(env.deps.table, subscriptionOwner.app_id)).map((one) => one.subscription_id)).toEqual([
      response.body.data.subscription_id,
    ]);
  });

  it('/subscription/delete answers deleted, not SUBSCRIPTION_NOT_FOUND', async () => {
    const subscription = await seedSubscription(env.deps, owner);
    const faulty = await serverLosing('TransactWriteItemsCommand', firstOnly);

    const response = await faulty.post('/subscription/delete', { subscription_id: subscription.subscription_id });

    expect(faulty.loss.lost()).toBe(1);
    expect(response.status).toBe(200);
    expect(await subscriptions.get(env.deps.table, subscription.subscription_id)).toBeUndefined();
  });

  it('/blacklist/delete answers deleted, not BLACKLIST_ENTRY_NOT_FOUND', async () => {
    await blacklist.put(env.deps.table, { app_id: owner.app_id, type: 'ip', value: '203.0.113.9', reason: null, created_at: new Date().toISOString() });
    const faulty = await serverLosing('TransactWriteItemsCommand', firstOnly);

    const response = await faulty.post('/blacklist/delete', { app_id: owner.app_id, type: 'ip', value: '203.0.113.9' });

    expect(faulty.loss.lost()).toBe(1);
    expect(response.status).toBe(200);
  });

  it('/license/create-bulk resent while its first attempt is still in progress, past the SDK’s retries, stores the 100 licenses it answers', async () => {
    const fresh = await freshOwner();
    const faulty = await serverLosing('TransactWriteItemsCommand', firstOnly, untilTheSdkGivesUp);

    const response = await faulty.post('/license/create-bulk', createBulkBody(fresh, 100), fresh.owner.auth);

    expect(response.status).toBe(200);
    const stored = (await licensesOf(fresh.owner.app_id)).map((item) => item.key).sort();
    expect(stored).toEqual(response.body.data.map((record: { key: string }) => record.key).sort());
  });

  it('/license/delete resent while its first attempt is still in progress, past the SDK’s retries, answers deleted', async () => {
    const seeded = await seedLicense(env.deps, plain);
    const faulty = await serverLosing('TransactWriteItemsCommand', firstOnly, untilTheSdkGivesUp);

    const response = await faulty.post('/license/delete', { license_key: seeded.key });

    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ key: seeded.key, deleted: true });
  });

  it('/license/extend-bulk resent while its first attempt is still in progress, past the SDK’s retries, extends each key once', async () => {
    const seeded = await Promise.all([1, 2].map(() => seedLicense(env.deps, plain)));
    const faulty = await serverLosing('TransactWriteItemsCommand', firstOnly, untilTheSdkGivesUp);

    const response = await faulty.post('/license/extend-bulk', { license_keys: seeded.map((one) => one.key), extend_seconds: 60 });

    expect(response.body.data).toEqual({ succeeded: seeded.map((one) => one.key), failed: [] });
    for (const one of seeded) expect((await license(one))?.initial_duration).toBe(one.initial_duration + 60);
  });

  it('two identical extensions sent on purpose are two extensions', async () => {
    const seeded = await seedLicense(env.deps, plain);
    const faulty = await serverLosing('TransactWriteItemsCommand', () => false);

    await faulty.post('/license/extend', { license_key: seeded.key, extend_seconds: 60 });
    await faulty.post('/license/extend', { license_key: seeded.key, extend_seconds: 60 });

    expect((await license(seeded))?.initial_duration).toBe(seeded.initial_duration + 120);
  });
});
