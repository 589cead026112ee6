import { createDeps } from '#core/deps';
import { createLogger } from '#core/logger';
import { startLocalServer, type LocalServer } from '../../local/server';
import { createTestClient, request } from '../support/env';
import { awsError, firstOnly, injectFault, loseAnswers } from '../support/dynamo-faults';
import { seedSubscription } from '../support/fixtures';
import { checkInvariants, scanAll } from '../support/invariants';
import { createOwner, withOwner, type Owner } from '../support/owners';

/**
 * One trial per device however requests meet (docs/client-api.md#post-trial):
 * requests sent at once through the local server, a write whose answer was
 * lost after the store applied it, each checked over every stored item.
 */
const { env } = withOwner({ config: { cacheTtlSeconds: 0 } });
const servers: LocalServer[] = [];
afterAll(() => Promise.all(servers.map((server) => server.close())));

async function trialApp(trial: Record<string, unknown> = {}, subscription: Record<string, unknown> = {}): Promise<Owner> {
  const owner = await createOwner(env.deps);
  const tier = await seedSubscription(env.deps, owner, subscription);
  const set = await env.post('/app/settings', { app_id: owner.app_id, trial: { subscription_id: tier.subscription_id, duration_seconds: 86400, per_ip_per_day: 1000, ...trial } }, owner.auth);
  expect(set.status).toBe(200);
  return owner;
}

const itemsOf = async (appId: string) => {
  const items = await scanAll(env.deps.table);
  return {
    all: items,
    licenses: items.filter((item) => item.sk === 'LIC' && item.app_id === appId),
    claims: items.filter((item) => item.pk === `APP#${appId}` && String(item.sk).startsWith('TRIAL#')),
    addresses: items.filter((item) => item.pk === `APP#${appId}` && String(item.sk).startsWith('TRIALIP#')),
  };
};

describe('trial races', () => {
  it.each([
    ['a plain subscription', {}],
    ['a single_key_per_hwid subscription', { single_key_per_hwid: true }],
  ])('20 concurrent /trial from one HWID under %s: exactly one license, and every answer names it', async (_name, subscription) => {
    const owner = await trialApp({}, subscription);

    const answers = await Promise.all(Array.from({ length: 20 }, () => env.post('/trial', { app_id: owner.app_id, hwid: 'one-pc' })));

    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    const messages = answers.map((answer) => answer.body.message);
    expect(messages.filter((message) => message === 'TRIAL_STARTED')).toHaveLength(1);
    expect(messages.filter((message) => message === 'TRIAL_RESUMED')).toHaveLength(19);
    const stored = await itemsOf(owner.app_id);
    expect(stored.licenses).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.body.data.license))).toEqual(new Set([stored.licenses[0]!.key]));
    expect(stored.claims).toHaveLength(1);
    expect(stored.addresses.map((address) => (address.starts as number[]).length)).toEqual([1]);
    expect(checkInvariants(stored.all)).toEqual([]);
  }, 60_000);

  it('20 concurrent first /trial from one HWID through a warm container, which looks for the key the application names the device with: exactly one license, every answer names it', async () => {
    const owner = await trialApp();
    const server = await startLocalServer({ deps: createDeps({ ...env.config, cacheTtlSeconds: 300 }, { client: createTestClient(env.config), logger: createLogger('silent') }), port: 0 });
    servers.push(server);
    const post = (hwid: string) => request(server.url, '/trial', 'POST', { app_id: owner.app_id, hwid });
    expect((await post('warming-pc')).body.message).toBe('TRIAL_STARTED');

    const answers = await Promise.all(Array.from({ length: 20 }, () => post('one-pc')));

    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    expect(answers.filter((answer) => answer.body.message === 'TRIAL_STARTED')).toHaveLength(1);
    const stored = await itemsOf(owner.app_id);
    const made = stored.claims.find((claim) => claim.hwid === 'one-pc')!.license_key;
    expect(new Set(answers.map((answer) => answer.body.data.license))).toEqual(new Set([made]));
    expect([stored.licenses.length, stored.claims.length]).toEqual([2, 2]);
    expect(stored.addresses.map((address) => (address.starts as number[]).length)).toEqual([2]);
    expect(checkInvariants(stored.all)).toEqual([]);
  }, 60_000);

  it('20 concurrent /trial from 20 HWIDs at one address with per_ip_per_day 5: exactly 5 started', async () => {
    const owner = await trialApp({ per_ip_per_day: 5 });
    const hwids = Array.from({ length: 20 }, (_, index) => `pc-${index}`);

    const answers = await Promise.all(hwids.map((hwid) => env.post('/trial', { app_id: owner.app_id, hwid })));

    const started = hwids.filter((_, index) => answers[index]!.body.message === 'TRIAL_STARTED');
    expect(started).toHaveLength(5);
    expect(answers.filter((answer) => answer.body.message !== 'TRIAL_STARTED').map((answer) => [answer.status, answer.body])).toEqual(
      Array(15).fill([403, { success: false, message: 'TRIAL_LIMIT_REACHED' }]),
    );
    const stored = await itemsOf(owner.app_id);
    expect(stored.licenses.map((license) => license.hwid).sort()).toEqual([...started].sort());
    expect(stored.claims.map((claim) => claim.hwid).sort()).toEqual([...started].sort());
    expect(stored.addresses.map((address) => (address.starts as number[]).length)).toEqual([5]);
  }, 60_000);

  it('20 concurrent /trial from 20 HWIDs at one address under its limit: all 20 started, each deciding again after every start that wrote first', async () => {
    const owner = await trialApp({ per_ip_per_day: 1000 });
    const hwids = Array.from({ length: 20 }, (_, index) => `pc-${index}`);

    const logged = env.logs.lines.length;
    const answers = await Promise.all(hwids.map((hwid) => env.post('/trial', { app_id: owner.app_id, hwid })));

    // With the error lines the requests logged, so an unexpected answer shows its cause.
    const errors = env.logs.lines.slice(logged).filter((line) => JSON.parse(line).level === 'error');
    expect({ answers: answers.map((answer) => [answer.status, answer.body.message]), errors }).toEqual({ answers: Array(20).fill([200, 'TRIAL_STARTED']), errors: [] });
    const stored = await itemsOf(owner.app_id);
    expect(stored.licenses).toHaveLength(20);
    expect(stored.addresses.map((address) => (address.starts as number[]).length)).toEqual([20]);
    expect(checkInvariants(stored.all)).toEqual([]);
  }, 60_000);

  it('a start that keeps losing its address to other starts answers 429 RATE_LIMITED with nothing written, never a 500', async () => {
    const owner = await trialApp();
    const client = createTestClient(env.config);
    // Every start's transaction cancelled as if another start had just changed the address's list.
    const address = awsError('TransactionCanceledException', { CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }, { Code: 'None' }] });
    const refused = injectFault(client, 'TransactWriteItemsCommand', () => address);
    const server = await startLocalServer({ deps: createDeps(env.config, { client, logger: createLogger('silent') }), port: 0 });
    servers.push(server);

    const answer = await request(server.url, '/trial', 'POST', { app_id: owner.app_id, hwid: 'crowded-pc' });

    expect([answer.status, answer.body]).toEqual([429, { success: false, message: 'RATE_LIMITED' }]);
    expect(refused.attempts()).toBe(100);
    const stored = await itemsOf(owner.app_id);
    expect([stored.licenses, stored.claims, stored.addresses]).toEqual([[], [], []]);
  }, 60_000);

  it('a start whose answer was lost after the store applied it answers TRIAL_STARTED, and a retried request the same license', async () => {
    const owner = await trialApp({ per_ip_per_day: 1 });
    const client = createTestClient(env.config);
    const loss = loseAnswers(client, 'TransactWriteItemsCommand', firstOnly);
    const server = await startLocalServer({ deps: createDeps(env.config, { client, logger: createLogger('silent') }), port: 0 });
    servers.push(server);

    const first = await request(server.url, '/trial', 'POST', { app_id: owner.app_id, hwid: 'lost-pc' });
    expect(loss.lost()).toBe(1);
    expect([first.status, first.body.message]).toEqual([200, 'TRIAL_STARTED']);
    // The program never heard the answer and asks again: the same trial, not counted again.
    const again = await request(server.url, '/trial', 'POST', { app_id: owner.app_id, hwid: 'lost-pc' });
    expect([again.status, again.body.message, again.body.data.license]).toEqual([200, 'TRIAL_RESUMED', first.body.data.license]);

    const stored = await itemsOf(owner.app_id);
    expect(stored.licenses.map((license) => license.key)).toEqual([first.body.data.license]);
    expect(stored.claims).toHaveLength(1);
    expect(stored.addresses.map((address) => (address.starts as number[]).length)).toEqual([1]);
    expect(checkInvariants(stored.all)).toEqual([]);
  });
});
