import { createServer, type Server, type Socket } from 'node:net';
import type { Config } from '#core/config';
import { createDeps, type Deps } from '#core/deps';
import { createLogger } from '#core/logger';
import { createDynamoClient } from '#data/db';
import { DynamoError, type DynamoClient, type Wire } from '#data/dynamo/client';
import type { Subscription } from '#data/subscription.repo';
import { startLocalServer, type LocalServer } from '../../local/server';
import { createTestEnv, request, type TestEnv } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { checkInvariants, scanAll } from '../support/invariants';
import { createOwner, type Owner } from '../support/owners';

/**
 * DynamoDB misbehaving under the real handlers: the client retries what is safe to
 * retry, the caller gets the documented 500 otherwise, and no half-written state
 * remains. The store is DynamoDB Local; faults are injected into the client of
 * the server under test, either on each attempt (inside the client's retry
 * loop) or on each call (replacing the answers to one action).
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
async function serverOver(client: DynamoClient, config: Partial<Config> = {}): Promise<Faulty> {
  const logs: string[] = [];
  const deps = createDeps({ ...env.config, ...config }, { client, logger: createLogger('debug', {}, (line) => logs.push(line)) });
  const server = await startLocalServer({ deps, port: 0 });
  servers.push(server);
  return { deps, logs, post: (path, body, headers = {}) => request(server.url, path, 'POST', body, headers) };
}

function awsError(name: string, details: Wire = {}): DynamoError {
  return new DynamoError(name, `${name} (injected)`, 400, details);
}

/** Throws `fault()` for the action it names, inside the client's retry loop; answers how many attempts it saw. */
function injectFault(client: DynamoClient, operation: string, fault: (attempt: number) => Error | undefined) {
  let attempts = 0;
  client.intercept('attempt', (call, next) => {
    if (call.operation !== operation) return next(call);
    const error = fault(++attempts);
    if (error) throw error;
    return next(call);
  });
  return { attempts: () => attempts };
}

/**
 * Answers the calls of one action with `answer` (outside the retry loop), which
 * may `pass` a request on to the table; every other action reaches the table.
 */
function stub(client: DynamoClient, operation: string, answer: (input: Wire, pass: (input: Wire) => Promise<Wire>, call: number) => Promise<Wire>) {
  let calls = 0;
  client.intercept('call', (call, next) => (call.operation === operation ? answer(call.input, (input) => next({ ...call, input }), ++calls) : next(call)));
  return { calls: () => calls };
}

const auth = (faulty: Faulty, body: Record<string, unknown>) => faulty.post('/auth', { app_id: owner.app_id, ...body });

describe('throttling', () => {
  it('the client retries a throttled BatchGetItem and /auth succeeds once DynamoDB recovers', async () => {
    const client = createDynamoClient(env.config);
    const fault = injectFault(client, 'BatchGetItem', (attempt) => (attempt <= 2 ? awsError('ProvisionedThroughputExceededException') : undefined));
    const faulty = await serverOver(client);
    const license = await seedLicense(env.deps, singleKey);

    const response = await auth(faulty, { license: license.key });

    expect(response.status).toBe(200);
    expect(fault.attempts()).toBeGreaterThanOrEqual(3);
  });

  it('a throttle that does not pass answers /auth 500 in the documented shape after the client’s 4 attempts', async () => {
    const client = createDynamoClient(env.config);
    const fault = injectFault(client, 'BatchGetItem', () => awsError('ThrottlingException'));
    const faulty = await serverOver(client);
    const license = await seedLicense(env.deps, singleKey);

    const response = await auth(faulty, { license: license.key });

    expect(response.status).toBe(500);
    expect(response.body).toEqual(clientAnswer500);
    expect(fault.attempts()).toBe(4);
    expect(await env.deps.repos.licenses.get(license.key)).toEqual(license);
  });

  it('a throttled management write answers 500 SERVER_ERROR and leaves the license as it was', async () => {
    const client = createDynamoClient(env.config);
    injectFault(client, 'UpdateItem', () => awsError('ThrottlingException'));
    const faulty = await serverOver(client);
    const license = await seedLicense(env.deps, singleKey);

    const response = await faulty.post('/license/update-status', { license_key: license.key, status: 'paused' }, owner.auth);

    expect(response.status).toBe(500);
    expect(response.body).toEqual(managementAnswer500);
    expect(await env.deps.repos.licenses.get(license.key)).toEqual(license);
  });
});

describe('cancelled transactions', () => {
  it('a first activation whose transaction keeps conflicting is retried, then answers 500 with nothing bound', async () => {
    const client = createDynamoClient(env.config);
    const transactions = stub(client, 'TransactWriteItems', async () => {
      throw awsError('TransactionCanceledException', { CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }] });
    });
    const faulty = await serverOver(client);
    const license = await seedLicense(env.deps, singleKey, { hwid_lock: true });

    const response = await auth(faulty, { license: license.key, hwid: 'conflicted-device' });

    expect(response.status).toBe(500);
    expect(response.body).toEqual(clientAnswer500);
    expect(transactions.calls()).toBe(5);
    expect(await env.deps.repos.licenses.get(license.key)).toEqual(license);
    expect(await env.deps.repos.hwids.get(owner.app_id, 'conflicted-device')).toBeUndefined();
  });

  it('a conflict that passes is retried into a normal activation', async () => {
    const client = createDynamoClient(env.config);
    stub(client, 'TransactWriteItems', async (input, pass, call) => {
      if (call === 1) throw awsError('TransactionCanceledException', { CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }] });
      return pass(input);
    });
    const faulty = await serverOver(client);
    const license = await seedLicense(env.deps, singleKey, { hwid_lock: true });

    const response = await auth(faulty, { license: license.key, hwid: 'recovered-device' });

    expect(response.status).toBe(200);
    expect(await env.deps.repos.hwids.get(owner.app_id, 'recovered-device')).toMatchObject({ license_key: license.key });
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
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
    const client = createDynamoClient(env.config);
    const batches = stub(client, 'BatchGetItem', async (input, pass, call) =>
      call === 1 ? { Responses: { [env.config.tableName]: [] }, UnprocessedKeys: input.RequestItems } : pass(input),
    );
    const faulty = await serverOver(client);
    const license = await seedLicense(env.deps, singleKey);

    const response = await auth(faulty, { license: license.key });

    expect(response.status).toBe(200);
    expect(batches.calls()).toBeGreaterThanOrEqual(3);
  });

  it('/auth answers 500 when keys stay unprocessed, rather than acting on items it could not read', async () => {
    const client = createDynamoClient(env.config);
    const batches = stub(client, 'BatchGetItem', async (input) => ({ Responses: { [env.config.tableName]: [] }, UnprocessedKeys: input.RequestItems }));
    const faulty = await serverOver(client);
    const license = await seedLicense(env.deps, singleKey);

    const response = await auth(faulty, { license: license.key });

    expect(response.status).toBe(500);
    expect(response.body).toEqual(clientAnswer500);
    expect(batches.calls()).toBe(6);
  });

  it('extend-bulk reads licenses a BatchGetItem left unprocessed and extends every one', async () => {
    const client = createDynamoClient(env.config);
    stub(client, 'BatchGetItem', async (input, pass, call) => {
      if (call > 1) return pass(input);
      const [kept, ...left] = input.RequestItems[env.config.tableName].Keys;
      const answer = await pass({ RequestItems: { [env.config.tableName]: { Keys: [kept] } } });
      return { ...answer, UnprocessedKeys: { [env.config.tableName]: { Keys: left } } };
    });
    const faulty = await serverOver(client);
    const licenses = await Promise.all([1, 2, 3].map(() => seedLicense(env.deps, singleKey)));

    const response = await faulty.post('/license/extend-bulk', { license_keys: licenses.map((license) => license.key), extend_seconds: 60 }, owner.auth);

    expect(response.body.data).toEqual({ succeeded: licenses.map((license) => license.key), failed: [] });
    for (const license of licenses) expect((await env.deps.repos.licenses.get(license.key))?.initial_duration).toBe(license.initial_duration + 60);
  });

  it('a bulk delete retries items a BatchWriteItem left unprocessed until all are gone', async () => {
    const client = createDynamoClient(env.config);
    const batches = stub(client, 'BatchWriteItem', async (input, pass, call) => {
      if (call > 1) return pass(input);
      const [first, ...rest] = input.RequestItems[env.config.tableName];
      await pass({ RequestItems: { [env.config.tableName]: [first] } });
      return { UnprocessedItems: { [env.config.tableName]: rest } };
    });
    const { deps } = await serverOver(client);
    const licenses = await Promise.all([1, 2, 3].map(() => seedLicense(env.deps, singleKey)));

    await deps.repos.licenses.deleteAll(licenses.map((license) => license.key));

    expect(batches.calls()).toBe(2);
    for (const license of licenses) expect(await env.deps.repos.licenses.get(license.key)).toBeUndefined();
  });

  it('a bulk delete whose items stay unprocessed gives up with an error instead of spinning until the deadline', async () => {
    const client = createDynamoClient(env.config);
    const batches = stub(client, 'BatchWriteItem', async (input) => ({ UnprocessedItems: input.RequestItems }));
    const { deps } = await serverOver(client);

    await expect(deps.repos.licenses.deleteAll(['KEY-1', 'KEY-2'])).rejects.toThrow(/unprocessed/);
    expect(batches.calls()).toBe(6);
  });
});

describe('a write failing midway through a flow', () => {
  const writes = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

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
    const clean = createDynamoClient(env.config);
    let cleanWrites = 0;
    clean.intercept('call', (call, next) => {
      if (writes.has(call.operation)) cleanWrites++;
      return next(call);
    });
    expect(await flow(await serverOver(clean), 'clean')).toEqual([200, 200, 200, 200, 200, 200, 200]);
    expect(cleanWrites).toBeGreaterThanOrEqual(7);

    for (let failing = 1; failing <= cleanWrites; failing++) {
      const client = createDynamoClient(env.config);
      let seen = 0;
      client.intercept('call', async (call, next) => {
        if (writes.has(call.operation) && ++seen === failing) throw awsError('InjectedFault');
        return next(call);
      });

      const statuses = await flow(await serverOver(client), `fail-${failing}`);

      expect(statuses).toContain(500);
      expect(statuses.every((status) => status === 200 || status === 500 || (status >= 400 && status < 500))).toBe(true);
      expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
    }
  });
});
