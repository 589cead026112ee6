import type { Subscription } from '#data/model/subscription';
import { awsError, injectFault, slowAnswers } from '../support/dynamo-faults';
import { startTestServer, type HttpResult, type TestServer } from '../support/env';
import { seedSubscription } from '../support/fixtures';
import { bulkUntilStarted, createInBulk, listAllLicenses, scanTable } from '../support/licenses';
import { createOwner, type Owner } from '../support/owners';

/**
 * The bulk routes on a store that answers every transaction 1.5 s late, with
 * one second to start work in (BULK_WORK_SECONDS): they answer what they did
 * and what they did not start, or a 503 that is safe to send again, never a
 * 500; the same request sent again once the store is fast finishes the work,
 * and does each part of it once (docs/management-api.md#time-budget-of-bulk-routes).
 */
let env: TestServer;
let owner: Owner;

beforeAll(async () => {
  env = await startTestServer({ config: { bulkWorkSeconds: 1 } });
  owner = await createOwner(env.deps);
});
afterAll(() => env.close());

const answerDelayMs = 1500;
/** Five chunks of 100: four start at once and take 1.5 s, so the fifth is never started. */
const keyAmount = 500;
const createBody = (tier: Subscription) => ({ key_amount: keyAmount, app_id: owner.app_id, subscription_id: tier.subscription_id, duration_unit: 'days', duration_value: 1 });
const underRequestId = (tier: Subscription, requestId: string) => ({ ...createBody(tier), request_id: requestId });
const licensesOf = async (tier: Subscription) => (await listAllLicenses(env, owner, { app_id: owner.app_id, subscription_id: tier.subscription_id, per_page: 100 })).licenses;

async function onSlowStore(send: () => Promise<HttpResult>) {
  const slow = slowAnswers(env.client, 'TransactWriteItemsCommand', answerDelayMs);
  try {
    return { response: await send(), transactions: slow.attempts() };
  } finally {
    slow.remove();
  }
}

type BulkAnswer = { succeeded: string[]; failed: { license_key: string; error_code: string }[] };

describe('create-bulk on a slow store', () => {
  it('without a request_id answers 503 and keeps none of the licenses, so sending it again makes no second set', async () => {
    const tier = await seedSubscription(env.deps, owner, { name: 'All or none' });

    const { response, transactions } = await onSlowStore(() => env.post('/license/create-bulk', createBody(tier), owner.auth));

    expect({ status: response.status, code: response.body.error_code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(response.body.error).toMatch(/none were created/);
    expect(transactions).toBeLessThan(keyAmount / 100);
    expect(await licensesOf(tier)).toEqual([]);
  }, 120_000);

  it('with a request_id answers 503 keeping what it wrote; the same request finishes it and answers the same licenses, each made once', async () => {
    const tier = await seedSubscription(env.deps, owner, { name: 'Resumed' });
    const { response } = await onSlowStore(() => env.post('/license/create-bulk', underRequestId(tier, 'slow-create'), owner.auth));

    expect({ status: response.status, code: response.body.error_code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(response.body.error).toMatch(/those written are kept/);
    const kept = await licensesOf(tier);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(keyAmount);

    const finished = await createInBulk(env, owner, underRequestId(tier, 'slow-create'));
    expect(finished.status).toBe(200);
    const answered: string[] = finished.body.data.map((license: { key: string }) => license.key);
    expect(new Set(answered).size).toBe(keyAmount);
    expect(answered).toEqual(expect.arrayContaining(kept.map((license) => license.key)));
    expect((await licensesOf(tier)).map((license) => license.key).sort()).toEqual([...answered].sort());
    const again = await env.post('/license/create-bulk', underRequestId(tier, 'slow-create'), owner.auth);
    expect(again.body.data.map((license: { key: string }) => license.key)).toEqual(answered);
  }, 300_000);

  it('refuses a request_id sent again with another body', async () => {
    const tier = await seedSubscription(env.deps, owner, { name: 'Other body' });
    const first = await createInBulk(env, owner, { ...underRequestId(tier, 'one-body'), key_amount: 2 });
    expect(first.status).toBe(200);
    const other = await env.post('/license/create-bulk', { ...underRequestId(tier, 'one-body'), key_amount: 3 }, owner.auth);
    expect({ status: other.status, code: other.body.error_code }).toEqual({ status: 400, code: 'INVALID_INPUT' });
    expect(other.body.error).toMatch(/^request_id: /);
  });
});

describe('extend-bulk on a slow store', () => {
  it('answers each key it extended and SERVICE_UNAVAILABLE for the rest; those sent again under the same request_id are extended, each license once', async () => {
    const tier = await seedSubscription(env.deps, owner, { name: 'Extended' });
    const created = await createInBulk(env, owner, underRequestId(tier, 'to-extend'));
    const licenseKeys: string[] = created.body.data.map((license: { key: string }) => license.key);
    const { response } = await onSlowStore(() => env.post('/license/extend-bulk', { license_keys: licenseKeys, extend_seconds: 600, request_id: 'slow-extend' }, owner.auth));

    expect(response.status).toBe(200);
    const { succeeded, failed } = response.body.data as BulkAnswer;
    expect(failed.length).toBeGreaterThan(0);
    expect(new Set(failed.map((failure) => failure.error_code))).toEqual(new Set(['SERVICE_UNAVAILABLE']));
    expect([...succeeded, ...failed.map((failure) => failure.license_key)].sort()).toEqual([...licenseKeys].sort());
    const extendedNow = (await licensesOf(tier)).filter((license) => license.initial_duration === 86400 + 600).map((license) => license.key);
    expect(extendedNow.sort()).toEqual([...succeeded].sort());

    const rest = await bulkUntilStarted(env, owner, '/license/extend-bulk', { license_keys: failed.map((failure) => failure.license_key), extend_seconds: 600, request_id: 'slow-extend' });
    expect(rest.failed).toEqual([]);
    const done = new Set([...succeeded, ...rest.succeeded]);
    expect(done.size).toBe(keyAmount);
    expect(new Set((await licensesOf(tier)).map((license) => license.initial_duration))).toEqual(new Set([86400 + 600]));
  }, 300_000);

  it('answers 503 and changes nothing when the store cannot give the licenses to extend', async () => {
    const tier = await seedSubscription(env.deps, owner, { name: 'Unreadable' });
    const created = await createInBulk(env, owner, { ...underRequestId(tier, 'unreadable'), key_amount: 10 });
    const before = await scanTable(env.deps);
    injectFault(env.client, 'BatchGetItemCommand', () => awsError('ProvisionedThroughputExceededException', { $retryable: { throttling: true } }));
    let refused;
    try {
      refused = await env.post('/license/extend-bulk', { license_keys: created.body.data.map((license: { key: string }) => license.key), extend_seconds: 60 }, owner.auth);
    } finally {
      env.client.middlewareStack.remove('injectedFault:BatchGetItemCommand');
    }

    expect({ status: refused.status, code: refused.body.error_code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(await scanTable(env.deps)).toEqual(before);
  }, 120_000);
});
