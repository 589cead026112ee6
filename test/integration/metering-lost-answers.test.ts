import { createDeps } from '#core/deps';
import { createLogger } from '#core/logger';
import type { Subscription } from '#data/model/subscription';
import { startLocalServer, type LocalServer } from '../../local/server';
import { firstOnly, loseAnswers } from '../support/dynamo-faults';
import { createTestClient, createTestEnv, request, type TestEnv } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';
import * as licenses from '#data/license.repo';
import * as subscriptions from '#data/subscription.repo';
import * as usage from '#data/usage.repo';

/**
 * Each write of entitlements and metered usage with DynamoDB's answer lost
 * after the store applied it, so the SDK sends it again: applied once, and
 * answered as the first attempt earned.
 */
let env: TestEnv;
let owner: Owner;
let metered: Subscription;
const servers: LocalServer[] = [];

beforeAll(async () => {
  env = await createTestEnv({ config: { cacheTtlSeconds: 0 } });
  owner = await createOwner(env.deps);
  metered = await seedSubscription(env.deps, owner, { usage_limits: { exports: { limit: 5, period: 'month', overage: 0 } } });
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  env.deps.table.doc.destroy();
});

async function serverLosing(commandName: string) {
  const client = createTestClient(env.config);
  const loss = loseAnswers(client, commandName, firstOnly);
  const deps = createDeps(env.config, { client, keyVault: env.deps.keyVault, logger: createLogger('silent') });
  const server = await startLocalServer({ deps, port: 0 });
  servers.push(server);
  return { loss, post: (path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) => request(server.url, path, 'POST', body, headers) };
}

const usedLicense = () =>
  seedLicense(env.deps, metered, { first_used_at: new Date().toISOString(), expires_at: new Date(Date.now() + 86400_000).toISOString() });
const stored = async (key: string) => (await licenses.get(env.deps.table, key, owner.team_id))!;

describe('a metering write whose answer is lost after the store applied it', () => {
  it('/usage starting a counter counts once and answers the count', async () => {
    const license = await usedLicense();
    const faulty = await serverLosing('UpdateItemCommand');

    const answer = await faulty.post('/usage', { app_id: owner.app_id, license: license.key, counter: 'exports', amount: 2 });

    expect(faulty.loss.lost()).toBe(1);
    expect(answer.body).toMatchObject({ success: true, message: 'USAGE_RECORDED', data: { used: 2, remaining: 3 } });
    expect((await stored(license.key)).counters!.exports!.used).toBe(2);
  });

  it('/usage adding to a counter counts once and answers the count', async () => {
    const license = await usedLicense();
    const faulty = await serverLosing('UpdateItemCommand');
    await faulty.post('/usage', { app_id: owner.app_id, license: license.key, counter: 'exports', amount: 1 });

    const answer = await faulty.post('/usage', { app_id: owner.app_id, license: license.key, counter: 'exports', amount: 3 });

    expect(faulty.loss.lost()).toBe(1);
    expect(answer.body).toMatchObject({ success: true, message: 'USAGE_RECORDED', data: { used: 4, remaining: 1 } });
    expect((await stored(license.key)).counters!.exports!.used).toBe(4);
  });

  it('/usage with a usage_id counts once and answers the count', async () => {
    const license = await usedLicense();
    const faulty = await serverLosing('TransactWriteItemsCommand');

    const answer = await faulty.post('/usage', { app_id: owner.app_id, license: license.key, counter: 'exports', amount: 5, usage_id: 'lost-answer-01' });

    expect(faulty.loss.lost()).toBe(1);
    expect(answer.body).toMatchObject({ success: true, message: 'USAGE_RECORDED', data: { used: 5, remaining: 0 } });
    expect((await stored(license.key)).counters!.exports!.used).toBe(5);
  });

  it('/usage refused for the first time in a period marks the counter once and answers USAGE_LIMIT_REACHED', async () => {
    const license = await usedLicense();
    const faulty = await serverLosing('UpdateItemCommand');

    const answer = await faulty.post('/usage', { app_id: owner.app_id, license: license.key, counter: 'exports', amount: 6 });

    expect(faulty.loss.lost()).toBe(1);
    expect(answer.body).toMatchObject({ success: false, message: 'USAGE_LIMIT_REACHED', data: { used: 0, remaining: 5 } });
    expect((await stored(license.key)).counters!.exports).toMatchObject({ used: 0, limit_reached_at: expect.any(String) });
  });

  it('/license/update-features, /license/update-usage-limits and /license/reset-usage answer the license as changed', async () => {
    const license = await usedLicense();
    await usage.count(env.deps.table, { license, counter: 'exports', limit: metered.usage_limits!.exports!, amount: 4, now: new Date(), token: 'seeded-count' });
    const faulty = await serverLosing('UpdateItemCommand');

    const features = await faulty.post('/license/update-features', { license_key: license.key, features: ['sync'] }, owner.auth);
    const limits = await faulty.post('/license/update-usage-limits', { license_key: license.key, usage_limits: { api: { limit: 1, period: 'day' } } }, owner.auth);
    const reset = await faulty.post('/license/reset-usage', { license_key: license.key }, owner.auth);

    expect(faulty.loss.lost()).toBe(1);
    expect(features.body.data.features).toEqual(['sync']);
    expect(limits.body.data.usage_limits).toEqual({ api: { limit: 1, period: 'day', overage: 0 } });
    expect(reset.body.data.usage.map(({ used }: { used: number }) => used)).toEqual([0, 0]);
    expect(await stored(license.key)).toMatchObject({ features: ['sync'], usage_limits: { api: { limit: 1, period: 'day', overage: 0 } } });
    expect((await stored(license.key)).counters).toBeUndefined();
  });

  it('/license/reset-usage itself answers the counters at 0', async () => {
    const license = await usedLicense();
    await usage.count(env.deps.table, { license, counter: 'exports', limit: metered.usage_limits!.exports!, amount: 4, now: new Date(), token: 'seeded-count' });
    const faulty = await serverLosing('UpdateItemCommand');

    const reset = await faulty.post('/license/reset-usage', { license_key: license.key, counter: 'exports' }, owner.auth);

    expect(faulty.loss.lost()).toBe(1);
    expect(reset.body.data.usage).toEqual([expect.objectContaining({ counter: 'exports', used: 0 })]);
    expect((await stored(license.key)).counters).toBeUndefined();
  });

  it('/subscription/edit of grace, features and usage limits answers the tier as changed', async () => {
    const tier = await seedSubscription(env.deps, owner);
    const faulty = await serverLosing('UpdateItemCommand');

    const edited = await faulty.post('/subscription/edit', { subscription_id: tier.subscription_id, grace_seconds: 60, features: ['a'], usage_limits: {} }, owner.auth);

    expect(faulty.loss.lost()).toBe(1);
    expect(edited.body.data).toMatchObject({ grace_seconds: 60, features: ['a'], usage_limits: {} });
    expect(await subscriptions.get(env.deps.table, tier.subscription_id)).toMatchObject({ grace_seconds: 60, features: ['a'] });
  });
});
