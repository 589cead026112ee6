import { createDeps } from '#core/deps';
import { createLogger } from '#core/logger';
import type { Subscription } from '#data/model/subscription';
import { startLocalServer, type LocalServer } from '../../local/server';
import { createTestClient, createTestEnv, request, type TestEnv } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { checkInvariants, scanAll } from '../support/invariants';
import { firstOnly, loseAnswers } from '../support/dynamo-faults';
import { createOwner, type Owner } from '../support/owners';
import * as hwids from '#data/hwid.repo';
import * as licenses from '#data/license.repo';

/**
 * The device writes when DynamoDB applied them but the answer was lost and the
 * SDK sent them again (as test/integration/lost-answers.test.ts does for the
 * other writes): the caller hears what really happened, and it happened once.
 */
let env: TestEnv;
let owner: Owner;
let singleKey: Subscription;
const servers: LocalServer[] = [];

beforeAll(async () => {
  env = await createTestEnv({ config: { cacheTtlSeconds: 0 } });
  owner = await createOwner(env.deps);
  singleKey = await seedSubscription(env.deps, owner, { single_key_per_hwid: true });
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  env.deps.table.doc.destroy();
});

async function serverLosingFirstTransaction() {
  const client = createTestClient(env.config);
  const loss = loseAnswers(client, 'TransactWriteItemsCommand', firstOnly);
  const server = await startLocalServer({ deps: createDeps(env.config, { client, logger: createLogger('silent') }), port: 0 });
  servers.push(server);
  return { loss, post: (path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) => request(server.url, path, 'POST', body, headers) };
}

describe('device writes whose answer was lost', () => {
  it('/reset-hwid answers HWID_RESET, not HWID_NOT_BOUND or a cooldown, and released the devices once', async () => {
    const seeded = await seedLicense(env.deps, singleKey, { hwid_lock: true, hwid_reset_interval: 3600 });
    await hwids.replaceHwids(env.deps.table, { license: seeded, hwids: ['lost-a'], claim: true });
    const faulty = await serverLosingFirstTransaction();

    const response = await faulty.post('/reset-hwid', { app_id: owner.app_id, license: seeded.key });

    expect(faulty.loss.lost()).toBe(1);
    expect(response.status).toBe(200);
    expect(response.body.message).toBe('HWID_RESET');
    const stored = await licenses.get(env.deps.table, seeded.key, seeded.team_id);
    expect(stored).toMatchObject({ hwid: null, hwids: [], last_hwid_reset_at: response.body.data.last_hwid_reset_at });
    expect(await hwids.get(env.deps.table, owner.app_id, 'lost-a')).toBeUndefined();
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });

  it('a second seat bound by /auth answers success, with the device listed once', async () => {
    const seeded = await seedLicense(env.deps, singleKey, { hwid_lock: true, max_devices: 2 });
    await hwids.replaceHwids(env.deps.table, { license: seeded, hwids: ['seat-1'], claim: true });
    const faulty = await serverLosingFirstTransaction();

    const response = await faulty.post('/auth', { app_id: owner.app_id, license: seeded.key, hwid: 'seat-2' });

    expect(faulty.loss.lost()).toBe(1);
    expect(response.body.message).toBe('LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY');
    expect((await licenses.get(env.deps.table, seeded.key, seeded.team_id))!.hwids).toEqual(['seat-1', 'seat-2']);
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });

  it('/hwid/remove answers the license without the device, not HWID_NOT_FOUND', async () => {
    const seeded = await seedLicense(env.deps, singleKey, { hwid_lock: true, max_devices: 2 });
    await hwids.replaceHwids(env.deps.table, { license: seeded, hwids: ['rm-1', 'rm-2'], claim: true });
    const faulty = await serverLosingFirstTransaction();

    const response = await faulty.post('/hwid/remove', { license_key: seeded.key, hwid: 'rm-1' }, owner.auth);

    expect(faulty.loss.lost()).toBe(1);
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ hwid: 'rm-2', hwids: ['rm-2'] });
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });
});
