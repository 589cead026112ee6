import { decodeJwt } from 'jose';
import { createDeps } from '#core/deps';
import { createLogger } from '#core/logger';
import type { Subscription } from '#data/model/subscription';
import { startLocalServer, type LocalServer } from '../../local/server';
import { createFakeClock } from '../support/clock';
import { createTestClient, createTestEnv, request, type HttpResult, type TestEnv } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { checkInvariants, scanAll } from '../support/invariants';
import { firstOnly, loseAnswers } from '../support/dynamo-faults';
import { createOwner, type Owner } from '../support/owners';
import * as hwids from '#data/hwid.repo';
import * as licenses from '#data/license.repo';

/**
 * The writes of license files when DynamoDB applied them but the answer was lost and the SDK
 * sent them again (as floating-lost-answers.test.ts does for seats): each is applied once, one
 * binding and one file per device, and answered as the first attempt earned.
 */
const clock = createFakeClock(new Date('2026-09-01T08:00:00.000Z'));
let env: TestEnv;
let owner: Owner;
let singleKey: Subscription;
const servers: LocalServer[] = [];

beforeAll(async () => {
  env = await createTestEnv({ clock, config: { cacheTtlSeconds: 0 } });
  owner = await createOwner(env.deps);
  singleKey = await seedSubscription(env.deps, owner, { single_key_per_hwid: true });
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  env.deps.table.doc.destroy();
});

type Post = (path: string, body: Record<string, unknown>) => Promise<HttpResult>;

async function server(lose?: { command: 'TransactWriteItemsCommand' | 'UpdateItemCommand' }) {
  const client = createTestClient(env.config);
  const loss = lose && loseAnswers(client, lose.command, firstOnly);
  const started = await startLocalServer({ deps: createDeps(env.config, { client, clock, logger: createLogger('silent'), keyVault: env.deps.keyVault }), port: 0 });
  servers.push(started);
  const post: Post = (path, body) => request(started.url, path, 'POST', body);
  return { loss, post };
}

const locked = (overrides: Parameters<typeof seedLicense>[2] = {}) => seedLicense(env.deps, singleKey, { hwid_lock: true, initial_duration: 365 * 86400, ...overrides });
const stored = async (key: string) => (await licenses.get(env.deps.table, key, owner.team_id))!;
const fileOf = (post: Post, body: Record<string, unknown>) => post('/license-file', { app_id: owner.app_id, lifetime_seconds: 86400, ...body });
const jtiOf = (answer: HttpResult) => decodeJwt(answer.body.data.license_file).jti as string;

describe('license file writes whose answer was lost', () => {
  it('a first file (first use and binding in one transaction) answers the first use, with one binding, one claim and one file', async () => {
    const { key } = await locked();
    const faulty = await server({ command: 'TransactWriteItemsCommand' });

    const answer = await fileOf(faulty.post, { license: key, hwid: 'lost-first' });

    expect(faulty.loss!.lost()).toBe(1);
    expect([answer.status, answer.body.message]).toEqual([200, 'LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY']);
    const license = await stored(key);
    expect(license.hwids).toEqual(['lost-first']);
    expect(Object.keys(license.files ?? {})).toEqual([jtiOf(answer)]);
    expect(await hwids.get(env.deps.table, owner.app_id, 'lost-first')).toMatchObject({ license_key: key });
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });

  it('a first file of a bound device (one UpdateItem writing the map whole) is stored once and answered', async () => {
    const { key } = await locked();
    const plain = await server();
    expect((await plain.post('/auth', { app_id: owner.app_id, license: key, hwid: 'bound-pc' })).status).toBe(200);
    const faulty = await server({ command: 'UpdateItemCommand' });

    const answer = await fileOf(faulty.post, { license: key, hwid: 'bound-pc' });

    expect(faulty.loss!.lost()).toBe(1);
    expect(faulty.loss!.attempts()).toBe(2);
    expect([answer.status, answer.body.message]).toEqual([200, 'LICENSE_VERIFIED_USED_AND_LOCKED_KEY']);
    expect(Object.keys((await stored(key)).files ?? {})).toEqual([jtiOf(answer)]);
  });

  it('a later file of a device (the entry set in place, its earlier one removed) is stored once and answered', async () => {
    const { key } = await locked();
    const plain = await server();
    const earlier = await fileOf(plain.post, { license: key, hwid: 'renewing-pc' });
    clock.advance(60);
    const faulty = await server({ command: 'UpdateItemCommand' });

    const answer = await fileOf(faulty.post, { license: key, hwid: 'renewing-pc' });

    expect(faulty.loss!.lost()).toBe(1);
    expect(answer.status).toBe(200);
    const files = (await stored(key)).files ?? {};
    expect(Object.keys(files)).toEqual([jtiOf(answer)]);
    expect(jtiOf(answer)).not.toBe(jtiOf(earlier));
  });

  it('a file on a floating license takes one seat, borrowed until the file ends', async () => {
    const { key } = await locked({ lease_seconds: 600, max_devices: 2 });
    const faulty = await server({ command: 'TransactWriteItemsCommand' });

    const answer = await fileOf(faulty.post, { license: key, hwid: 'lost-float' });

    expect(faulty.loss!.lost()).toBe(1);
    expect(answer.body.data.lease_expires_at).toBe(new Date(clock.now().getTime() + 86400_000).toISOString());
    const license = await stored(key);
    expect(license.hwids).toEqual(['lost-float']);
    expect(license.leases).toEqual({ 'lost-float': { expires_at: answer.body.data.lease_expires_at, borrowed: true } });
  });

  it('a return answers LICENSE_FILE_RETURNED, not Invalid return code, and freed the device once', async () => {
    const { key } = await locked({ hwid_reset_interval: 86400 });
    const plain = await server();
    const jti = jtiOf(await fileOf(plain.post, { license: key, hwid: 'returning-pc' }));
    const faulty = await server({ command: 'TransactWriteItemsCommand' });
    const code = `lfx1.${Buffer.from(JSON.stringify({ app_id: owner.app_id, license: key, hwid: 'returning-pc', jti })).toString('base64url')}`;

    const answer = await faulty.post('/license-file/return', { request: code });

    expect(faulty.loss!.lost()).toBe(1);
    expect([answer.status, answer.body.message]).toEqual([200, 'LICENSE_FILE_RETURNED']);
    const license = await stored(key);
    expect(license.hwids).toEqual([]);
    expect(license.files).toEqual({});
    expect(license.last_hwid_reset_at).toBe(clock.now().toISOString());
    expect(await hwids.get(env.deps.table, owner.app_id, 'returning-pc')).toBeUndefined();
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });
});
