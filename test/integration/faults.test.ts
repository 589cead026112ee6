import { createServer, type Server, type Socket } from 'node:net';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, BatchWriteCommand, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { Config } from '#core/config';
import { createDeps, type Deps } from '#core/deps';
import { createLogger } from '#core/logger';
import { createDynamoClient } from '#data/db';
import type { Subscription } from '#data/model/subscription';
import { startLocalServer, type LocalServer } from '../../local/server';
import { createTestClient, createTestEnv, request, type TestEnv } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { awsError, injectFault } from '../support/dynamo-faults';
import { checkInvariants, scanAll } from '../support/invariants';
import { recordingSink } from '../support/log-evidence';
import { createOwner, type Owner } from '../support/owners';
import * as hwids from '#data/hwid.repo';
import * as licensesRepo from '#data/license.repo';

/**
 * DynamoDB misbehaving under the real handlers: the SDK retries what is safe to
 * retry, the caller gets the documented 500 otherwise, and no half-written state
 * remains. The store is DynamoDB Local; faults are injected into the client of
 * the server under test, either as middleware (inside the SDK's retry loop) or
 * with aws-sdk-client-mock (replacing the answers of one command).
 */
let env: TestEnv;
let owner: Owner;
let singleKey: Subscription;
const servers: LocalServer[] = [];
const clientAnswer500 = { success: false, message: 'Internal server error' };
const managementAnswer500 = { error: 'Internal server error', error_code: 'SERVER_ERROR' };

beforeAll(async () => {
  env = await createTestEnv({ config: { cacheTtlSeconds: 0 } });
  owner = await createOwner(env.deps);
  singleKey = await seedSubscription(env.deps, owner, { single_key_per_hwid: true });
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  env.deps.table.doc.destroy();
});

interface Faulty {
  deps: Deps;
  logs: string[];
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Awaited<ReturnType<typeof request>>>;
}

/** A local server over the test table through a client of its own, for faults to be injected into. */
async function serverOver(client: DynamoDBClient, config: Partial<Config> = {}): Promise<Faulty> {
  const logs: string[] = [];
  const deps = createDeps({ ...env.config, ...config }, { client, keyVault: env.deps.keyVault, logger: createLogger('debug', {}, recordingSink(logs)) });
  const server = await startLocalServer({ deps, port: 0 });
  servers.push(server);
  return { deps, logs, post: (path, body, headers = {}) => request(server.url, path, 'POST', body, headers) };
}

/** Passes every document-client command through to the real table except the ones the test stubs afterwards. */
function passThrough(doc: DynamoDBDocumentClient) {
  const mock = mockClient(doc);
  const real = env.deps.table.doc;
  mock.on(GetCommand).callsFake((input) => real.send(new GetCommand(input)));
  mock.on(BatchGetCommand).callsFake((input) => real.send(new BatchGetCommand(input)));
  mock.on(QueryCommand).callsFake((input) => real.send(new QueryCommand(input)));
  mock.on(TransactWriteCommand).callsFake((input) => real.send(new TransactWriteCommand(input)));
  mock.on(BatchWriteCommand).callsFake((input) => real.send(new BatchWriteCommand(input)));
  return mock;
}

const auth = (faulty: Faulty, body: Record<string, unknown>) => faulty.post('/auth', { app_id: owner.app_id, ...body });

describe('throttling', () => {
  it('the SDK retries a throttled BatchGetItem and /auth succeeds once DynamoDB recovers', async () => {
    const client = createTestClient(env.config);
    const fault = injectFault(client, 'BatchGetItemCommand', (attempt) => (attempt <= 2 ? awsError('ProvisionedThroughputExceededException') : undefined));
    const faulty = await serverOver(client);
    const license = await seedLicense(env.deps, singleKey);

    const response = await auth(faulty, { license: license.key });

    expect(response.status).toBe(200);
    expect(fault.attempts()).toBeGreaterThanOrEqual(3);
  });

  it('a throttle that does not pass answers /auth 500 in the documented shape after the SDK’s 4 attempts', async () => {
    const client = createTestClient(env.config);
    const fault = injectFault(client, 'BatchGetItemCommand', () => awsError('ThrottlingException'));
    const faulty = await serverOver(client);
    const license = await seedLicense(env.deps, singleKey);

    const response = await auth(faulty, { license: license.key });

    expect(response.status).toBe(500);
    expect(response.body).toEqual(clientAnswer500);
    expect(fault.attempts()).toBe(4);
    expect(await licensesRepo.get(env.deps.table, license.key, license.team_id)).toEqual(license);
  });

  it('a throttled management write answers 500 SERVER_ERROR and leaves the license as it was', async () => {
    const client = createTestClient(env.config);
    injectFault(client, 'UpdateItemCommand', () => awsError('ThrottlingException'));
    const faulty = await serverOver(client);
    const license = await seedLicense(env.deps, singleKey);

    const response = await faulty.post('/license/update-status', { license_key: license.key, status: 'paused' }, owner.auth);

    expect(response.status).toBe(500);
    expect(response.body).toEqual(managementAnswer500);
    expect(await licensesRepo.get(env.deps.table, license.key, license.team_id)).toEqual(license);
  });
});

describe('cancelled transactions', () => {
  it('a first activation whose transaction keeps conflicting is retried, then answers 500 with nothing bound', async () => {
    const faulty = await serverOver(createTestClient(env.config));
    const mock = passThrough(faulty.deps.table.doc);
    mock.on(TransactWriteCommand).rejects(
      awsError('TransactionCanceledException', { CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }] }),
    );
    const license = await seedLicense(env.deps, singleKey, { hwid_lock: true });

    const response = await auth(faulty, { license: license.key, hwid: 'conflicted-device' });

    expect(response.status).toBe(500);
    expect(response.body).toEqual(clientAnswer500);
    expect(mock.commandCalls(TransactWriteCommand)).toHaveLength(5);
    expect(await licensesRepo.get(env.deps.table, license.key, license.team_id)).toEqual(license);
    expect(await hwids.get(env.deps.table, owner.app_id, 'conflicted-device')).toBeUndefined();
  });

  it('a conflict that passes is retried into a normal activation', async () => {
    const faulty = await serverOver(createTestClient(env.config));
    const mock = passThrough(faulty.deps.table.doc);
    mock
      .on(TransactWriteCommand)
      .rejectsOnce(awsError('TransactionCanceledException', { CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }] }))
      .callsFake((input) => env.deps.table.doc.send(new TransactWriteCommand(input)));
    const license = await seedLicense(env.deps, singleKey, { hwid_lock: true });

    const response = await auth(faulty, { license: license.key, hwid: 'recovered-device' });

    expect(response.status).toBe(200);
    expect(await hwids.get(env.deps.table, owner.app_id, 'recovered-device')).toMatchObject({ license_key: license.key });
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });
});

describe('a single-license write meeting another transaction', () => {
  const conflict = () => awsError('TransactionCanceledException', { CancellationReasons: [{ Code: 'TransactionConflict' }] });

  async function conflictingOnce() {
    const faulty = await serverOver(createTestClient(env.config));
    const mock = passThrough(faulty.deps.table.doc);
    mock
      .on(TransactWriteCommand)
      .rejectsOnce(conflict())
      .callsFake((input) => env.deps.table.doc.send(new TransactWriteCommand(input)));
    return { faulty, mock };
  }

  it.each([
    ['/license/update-user-credentials', (key: string) => ({ license_key: key, username: `conflicted-${key.slice(0, 5)}`, password: 'password-1' })],
    ['/hwid/toggle-lock', (key: string) => ({ license_key: key })],
    ['/hwid/edit', (key: string) => ({ license_key: key, hwid: `conflicted-${key.slice(0, 5)}` })],
    ['/license/extend', (key: string) => ({ license_key: key, extend_seconds: 60 })],
    ['/license/delete', (key: string) => ({ license_key: key })],
  ])('%s is retried after a TransactionConflict cancellation and answers 200', async (path, body) => {
    const { faulty, mock } = await conflictingOnce();
    const license = await seedLicense(env.deps, singleKey);

    const response = await faulty.post(path, body(license.key), owner.auth);

    expect(response.status).toBe(200);
    expect(mock.commandCalls(TransactWriteCommand)).toHaveLength(2);
  });

  it('/register is retried after a TransactionConflict cancellation and answers 200', async () => {
    const { faulty, mock } = await conflictingOnce();
    const license = await seedLicense(env.deps, singleKey);

    const registered = await faulty.post('/register', { app_id: owner.app_id, license: license.key, username: 'conflicted-register', password: 'password-1' });

    expect(registered.status).toBe(200);
    expect(mock.commandCalls(TransactWriteCommand)).toHaveLength(2);
  });

  it('/license/update-status is retried when its update meets a running transaction', async () => {
    const faulty = await serverOver(createTestClient(env.config));
    const mock = passThrough(faulty.deps.table.doc);
    mock
      .on(UpdateCommand)
      .rejectsOnce(awsError('TransactionConflictException'))
      .callsFake((input) => env.deps.table.doc.send(new UpdateCommand(input)));
    const license = await seedLicense(env.deps, singleKey);

    const response = await faulty.post('/license/update-status', { license_key: license.key, status: 'paused' }, owner.auth);

    expect(response.status).toBe(200);
    expect((await licensesRepo.get(env.deps.table, license.key, license.team_id))?.status).toBe('paused');
  });
});

describe('timeouts', () => {
  let silent: Server;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((listening) => silent.listen(0, '127.0.0.1', () => listening()));
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((closed) => silent.close(() => closed()));
  });

  it('a DynamoDB that never answers costs a bounded wait and answers 500 in the documented shape', async () => {
    const port = (silent.address() as { port: number }).port;
    const endpoint = `http://127.0.0.1:${port}`;
    const client = createDynamoClient({ region: 'local', dynamodbEndpoint: endpoint }, { requestTimeoutMs: 200, connectionTimeoutMs: 200, maxAttempts: 2 });
    const faulty = await serverOver(client, { dynamodbEndpoint: endpoint });
    const started = Date.now();

    const response = await auth(faulty, { license: 'ANY-KEY' });

    expect(response.status).toBe(500);
    expect(response.body).toEqual(clientAnswer500);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(faulty.logs.join('\n')).toMatch(/TimeoutError|timed out|timeout/i);
  });
});

describe('unprocessed items and keys', () => {
  it('/auth retries keys a BatchGetItem left unprocessed and answers as usual', async () => {
    const faulty = await serverOver(createTestClient(env.config));
    const mock = passThrough(faulty.deps.table.doc);
    mock
      .on(BatchGetCommand)
      .callsFakeOnce((input) => ({ Responses: { [env.config.tableName]: [] }, UnprocessedKeys: input.RequestItems }))
      .callsFake((input) => env.deps.table.doc.send(new BatchGetCommand(input)));
    const license = await seedLicense(env.deps, singleKey);

    const response = await auth(faulty, { license: license.key });

    expect(response.status).toBe(200);
    expect(mock.commandCalls(BatchGetCommand).length).toBeGreaterThanOrEqual(3);
  });

  it('/auth answers 500 when keys stay unprocessed, rather than acting on items it could not read', async () => {
    const faulty = await serverOver(createTestClient(env.config));
    const mock = passThrough(faulty.deps.table.doc);
    mock.on(BatchGetCommand).callsFake((input) => ({ Responses: { [env.config.tableName]: [] }, UnprocessedKeys: input.RequestItems }));
    const license = await seedLicense(env.deps, singleKey);

    const response = await auth(faulty, { license: license.key });

    expect(response.status).toBe(500);
    expect(response.body).toEqual(clientAnswer500);
    expect(mock.commandCalls(BatchGetCommand)).toHaveLength(6);
  });

  it('extend-bulk reads licenses a BatchGetItem left unprocessed and extends every one', async () => {
    const faulty = await serverOver(createTestClient(env.config));
    const mock = passThrough(faulty.deps.table.doc);
    mock
      .on(BatchGetCommand)
      .callsFakeOnce(async (input) => {
        const [kept, ...left] = input.RequestItems[env.config.tableName].Keys;
        const answer = await env.deps.table.doc.send(new BatchGetCommand({ RequestItems: { [env.config.tableName]: { Keys: [kept] } } }));
        return { ...answer, UnprocessedKeys: { [env.config.tableName]: { Keys: left } } };
      })
      .callsFake((input) => env.deps.table.doc.send(new BatchGetCommand(input)));
    const licenses = await Promise.all([1, 2, 3].map(() => seedLicense(env.deps, singleKey)));

    const response = await faulty.post('/license/extend-bulk', { license_keys: licenses.map((license) => license.key), extend_seconds: 60 }, owner.auth);

    expect(response.body.data).toEqual({ succeeded: licenses.map((license) => license.key), failed: [] });
    for (const license of licenses) expect((await licensesRepo.get(env.deps.table, license.key, license.team_id))?.initial_duration).toBe(license.initial_duration + 60);
  });

  it('a bulk delete retries items a BatchWriteItem left unprocessed until all are gone', async () => {
    const { deps } = await serverOver(createTestClient(env.config));
    const mock = passThrough(deps.table.doc);
    mock
      .on(BatchWriteCommand)
      .callsFakeOnce(async (input) => {
        const [first, ...rest] = input.RequestItems[env.config.tableName];
        await env.deps.table.doc.send(new BatchWriteCommand({ RequestItems: { [env.config.tableName]: [first] } }));
        return { UnprocessedItems: { [env.config.tableName]: rest } };
      })
      .callsFake((input) => env.deps.table.doc.send(new BatchWriteCommand(input)));
    const licenses = await Promise.all([1, 2, 3].map(() => seedLicense(env.deps, singleKey)));

    await licensesRepo.deleteAll(deps.table, licenses);

    expect(mock.commandCalls(BatchWriteCommand)).toHaveLength(2);
    for (const license of licenses) expect(await licensesRepo.get(env.deps.table, license.key, license.team_id)).toBeUndefined();
  });

  it('a bulk delete whose items stay unprocessed gives up with an error instead of spinning until the deadline', async () => {
    const { deps } = await serverOver(createTestClient(env.config));
    const mock = passThrough(deps.table.doc);
    mock.on(BatchWriteCommand).callsFake((input) => ({ UnprocessedItems: input.RequestItems }));

    const licenses = await Promise.all([1, 2].map(() => seedLicense(env.deps, singleKey)));
    await expect(licensesRepo.deleteAll(deps.table, licenses)).rejects.toThrow(/unprocessed/);
    expect(mock.commandCalls(BatchWriteCommand)).toHaveLength(6);
  });
});

describe('a write failing midway through a flow', () => {
  const writes = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);

  /** Licenses bound, renamed, rebound, created with credentials and deleted: every kind of multi-item write. */
  async function flow(faulty: Faulty, tag: string): Promise<number[]> {
    const statuses: number[] = [];
    const call = async (path: string, body: Record<string, unknown>, headers?: Record<string, string>) => {
      const response = await faulty.post(path, body, headers);
      statuses.push(response.status);
      if (response.status === 500) expect(response.body).toEqual(path === '/auth' || path === '/register' ? clientAnswer500 : managementAnswer500);
      return response;
    };
    const license = await seedLicense(env.deps, singleKey, { hwid_lock: true });
    await call('/auth', { app_id: owner.app_id, license: license.key, hwid: `${tag}-device-1` });
    await call('/register', { app_id: owner.app_id, license: license.key, username: `${tag}-user-1`, password: 'password-1' });
    await call('/hwid/edit', { license_key: license.key, hwid: `${tag}-device-2` }, owner.auth);
    await call('/license/update-user-credentials', { license_key: license.key, username: `${tag}-user-2`, password: 'password-2' }, owner.auth);
    await call(
      '/license/create',
      { app_id: owner.app_id, subscription_id: singleKey.subscription_id, duration_unit: 'days', duration_value: 1, username: `${tag}-user-3`, password: 'password-3', license_key: `${tag}-KEY` },
      owner.auth,
    );
    await call('/auth', { app_id: owner.app_id, license: `${tag}-KEY`, hwid: `${tag}-device-1` });
    await call('/license/delete', { license_key: license.key }, owner.auth);
    return statuses;
  }

  it('leaves no half-written state whichever write fails', async () => {
    const clean = createTestClient(env.config);
    let cleanWrites = 0;
    clean.middlewareStack.add(
      (next, context) => async (args) => {
        if (writes.has(context.commandName ?? '')) cleanWrites++;
        return next(args);
      },
      { step: 'initialize', name: 'writeCounter' },
    );
    expect(await flow(await serverOver(clean), 'clean')).toEqual([200, 200, 200, 200, 200, 200, 200]);
    expect(cleanWrites).toBeGreaterThanOrEqual(7);

    for (let failing = 1; failing <= cleanWrites; failing++) {
      const client = createTestClient(env.config);
      let seen = 0;
      client.middlewareStack.add(
        (next, context) => async (args) => {
          if (writes.has(context.commandName ?? '') && ++seen === failing) throw awsError('InjectedFault');
          return next(args);
        },
        { step: 'initialize', name: 'failNthWrite' },
      );

      const statuses = await flow(await serverOver(client), `fail-${failing}`);

      expect(statuses).toContain(500);
      expect(statuses.every((status) => status === 200 || status === 500 || (status >= 400 && status < 500))).toBe(true);
      expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
    }
  });
});
