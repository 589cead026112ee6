import { decodeJwt } from 'jose';
import { createDeps } from '#core/deps';
import { createLogger } from '#core/logger';
import type { Subscription } from '#data/model/subscription';
import { startLocalServer, type LocalServer } from '../../local/server';
import { createFakeClock } from '../support/clock';
import { createTestClient, createTestEnv, request, type TestEnv } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { checkInvariants, scanAll } from '../support/invariants';
import { firstOnly, loseAnswers } from '../support/dynamo-faults';
import { createOwner, type Owner } from '../support/owners';
import * as hwids from '#data/hwid.repo';
import * as licenses from '#data/license.repo';

/**
 * The writes of floating seats when DynamoDB applied them but the answer was
 * lost and the SDK sent them again (as devices-lost-answers.test.ts does for
 * node-locked seats): each is applied once and answered as the first attempt earned.
 */
const clock = createFakeClock(new Date('2026-07-01T08:00:00.000Z'));
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

type Command = 'TransactWriteItemsCommand' | 'UpdateItemCommand';

async function serverLosingFirst(command: Command, lose: (attempt: number) => boolean = firstOnly) {
  const client = createTestClient(env.config);
  const loss = loseAnswers(client, command, lose);
  const server = await startLocalServer({ deps: createDeps(env.config, { client, clock, logger: createLogger('silent'), keyVault: env.deps.keyVault }), port: 0 });
  servers.push(server);
  return { loss, post: (path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) => request(server.url, path, 'POST', body, headers) };
}

const floating = (overrides: Parameters<typeof seedLicense>[2] = {}) => seedLicense(env.deps, singleKey, { hwid_lock: true, lease_seconds: 600, max_devices: 2, ...overrides });
const stored = async (key: string) => (await licenses.get(env.deps.table, key, owner.team_id))!;
const auth = (post: (path: string, body: Record<string, unknown>) => Promise<{ status: number; body: any }>, body: Record<string, unknown>) =>
  post('/auth', { app_id: owner.app_id, ...body });
const at = (seconds: number) => new Date(clock.now().getTime() + seconds * 1000).toISOString();

describe('floating seat writes whose answer was lost', () => {
  it('a seat taken by /auth answers the first use, with the device listed and leased once', async () => {
    const { key } = await floating();
    const faulty = await serverLosingFirst('TransactWriteItemsCommand');

    const response = await auth(faulty.post, { license: key, hwid: 'lost-seat' });

    expect(faulty.loss.lost()).toBe(1);
    expect(response.body).toMatchObject({ success: true, message: 'LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY', data: { hwids: ['lost-seat'], lease_expires_at: at(600) } });
    const license = await stored(key);
    expect(license.hwids).toEqual(['lost-seat']);
    expect(Object.keys(license.leases)).toEqual(['lost-seat']);
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });

  it('a heartbeat answers its renewed lease, with one UpdateItem sent twice', async () => {
    const { key } = await floating();
    await auth(faultless, { license: key, hwid: 'beating' });
    clock.advance(120);
    const faulty = await serverLosingFirst('UpdateItemCommand');

    const response = await auth(faulty.post, { license: key, hwid: 'beating' });

    expect(faulty.loss.lost()).toBe(1);
    expect(faulty.loss.attempts()).toBe(2);
    expect(response.body).toMatchObject({ success: true, message: 'LICENSE_VERIFIED_USED_AND_LOCKED_KEY', data: { lease_expires_at: at(600) } });
    expect((await stored(key)).leases).toEqual({ beating: { expires_at: at(600), borrowed: false } });
  });

  it('a borrow answers its token ending with the borrowed lease, stored once', async () => {
    const { key } = await floating();
    await auth(faultless, { license: key, hwid: 'traveller' });
    const faulty = await serverLosingFirst('UpdateItemCommand');

    const response = await auth(faulty.post, { license: key, hwid: 'traveller', borrow_seconds: 3600 });

    expect(faulty.loss.lost()).toBe(1);
    expect(response.status).toBe(200);
    expect(response.body.data.lease_expires_at).toBe(at(3600));
    expect(decodeJwt(response.body.data.offline_token)).toMatchObject({ exp: Date.parse(at(3600)) / 1000, borrowed: true });
    expect((await stored(key)).leases).toEqual({ traveller: { expires_at: at(3600), borrowed: true } });
  });

  it('/release answers SEAT_RELEASED, not HWID_NOT_BOUND, and released the seat and its claim once', async () => {
    const { key } = await floating();
    await auth(faultless, { license: key, hwid: 'leaving' });
    await auth(faultless, { license: key, hwid: 'staying' });
    const faulty = await serverLosingFirst('TransactWriteItemsCommand');

    const response = await faulty.post('/release', { app_id: owner.app_id, license: key, hwid: 'leaving' });

    expect(faulty.loss.lost()).toBe(1);
    expect(response.body).toMatchObject({ success: true, message: 'SEAT_RELEASED', data: { hwids: ['staying'], lease_expires_at: null } });
    const license = await stored(key);
    expect(license.hwids).toEqual(['staying']);
    expect(Object.keys(license.leases)).toEqual(['staying']);
    expect(await hwids.get(env.deps.table, owner.app_id, 'leaving')).toBeUndefined();
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });

  it('/hwid/set-lease answers the record as set, whether turning leasing on or off', async () => {
    const { key } = await seedLicense(env.deps, singleKey, { hwid_lock: true, max_devices: 2 });
    await auth(faultless, { license: key, hwid: 'owned' });
    const faulty = await serverLosingFirst('TransactWriteItemsCommand');

    const on = await faulty.post('/hwid/set-lease', { license_key: key, lease_seconds: 300 }, owner.auth);
    const off = await faulty.post('/hwid/set-lease', { license_key: key, lease_seconds: null }, owner.auth);

    expect(faulty.loss.lost()).toBe(1);
    expect(on.body.data).toMatchObject({ lease_seconds: 300, floating: true, leases: [{ hwid: 'owned', expires_at: at(300), borrowed: false }] });
    expect(off.status).toBe(200);
    expect(off.body.data).toMatchObject({ hwids: ['owned'] });
    expect(await stored(key)).toMatchObject({ lease_seconds: null, leases: {}, hwids: ['owned'] });
  });

  it('a claim of an HWID whose lease on another license ended answers the bind once', async () => {
    const first = await floating({ lease_seconds: 60 });
    const second = await seedLicense(env.deps, singleKey, { hwid_lock: true });
    await auth(faultless, { license: first.key, hwid: 'moving-pc' });
    clock.advance(61);
    // Transactions in order: the claim (refused: the index item names the first license), the check that
    // the first license no longer lists the HWID (refused: it does), then the one that removes its ended lease.
    const faulty = await serverLosingFirst('TransactWriteItemsCommand', (attempt) => attempt === 3);

    const response = await auth(faulty.post, { license: second.key, hwid: 'moving-pc' });

    expect(faulty.loss.lost()).toBe(1);
    expect(response.body.message).toBe('LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY');
    expect(await hwids.get(env.deps.table, owner.app_id, 'moving-pc')).toMatchObject({ license_key: second.key });
    expect((await stored(first.key)).leases).toEqual({});
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });
});

let plainServer: LocalServer | undefined;
/** The test's own server without faults, for the requests that set a case up. */
async function faultless(path: string, body: Record<string, unknown>) {
  if (!plainServer) {
    plainServer = await startLocalServer({ deps: createDeps(env.config, { client: createTestClient(env.config), clock, logger: createLogger('silent'), keyVault: env.deps.keyVault }), port: 0 });
    servers.push(plainServer);
  }
  return request(plainServer.url, path, 'POST', body);
}
