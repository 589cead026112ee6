import { execFile, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CreateTableCommand, DescribeTableCommand, DescribeTimeToLiveCommand, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { readConfig } from '#core/config';
import { createDeps, type Deps } from '#core/deps';
import { localKeyVault } from '#core/key-vault';
import { createTableInput } from '#data/table';
import { freePort, startLocalStore, type LocalStore } from '../../local/store';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createOwner } from '../support/owners';
import { request } from '../support/env';
import { descendants, npmStart } from '../support/processes';
import * as apps from '#data/app.repo';
import * as teams from '#data/team.repo';

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A store of the test's own, standing in for a shared DynamoDB Local or a real table. */
let store: LocalStore;
let scratch: string;

beforeAll(async () => {
  store = await startLocalStore({ port: 0 });
  scratch = mkdtempSync(join(tmpdir(), 'licensing-external-'));
}, 60_000);
afterAll(async () => {
  await store.stop();
  rmSync(scratch, { recursive: true, force: true });
});

function storeDeps(tableName: string): Deps {
  return createDeps({ ...readConfig({}), tableName, dynamodbEndpoint: store.endpoint, logLevel: 'silent' }, { client: store.client, keyVault: localKeyVault(randomBytes(32)) });
}

/**
 * What a developer sets to work on that store. DYNAMODB_PORT names a free port and
 * DATA_DIR a fresh path, so an embedded store started by mistake would show there.
 */
async function externalEnv(tableName: string): Promise<NodeJS.ProcessEnv & { DYNAMODB_PORT: string; DATA_DIR: string }> {
  return {
    ...process.env,
    DYNAMODB_ENDPOINT: store.endpoint,
    TABLE_NAME: tableName,
    DYNAMODB_PORT: String(await freePort()),
    DATA_DIR: join(scratch, randomUUID()),
    PORT: '0',
    LOG_LEVEL: 'silent',
  };
}

const running: ChildProcess[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((done) => child.once('exit', done));
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
});

async function listening(port: string): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(Number(port), '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

async function tableNames(): Promise<string[]> {
  return (await store.client.send(new ListTablesCommand({}))).TableNames ?? [];
}

describe('npm start with DYNAMODB_ENDPOINT', () => {
  it('serves from that store, creating the missing table there, and starts no store of its own', async () => {
    const tableName = `external-${randomUUID()}`;
    const env = await externalEnv(tableName);
    expect(await tableNames()).not.toContain(tableName);

    const started = await npmStart(env, running);

    expect(started.banner).toContain(`DynamoDB at ${store.endpoint} (DYNAMODB_ENDPOINT), table ${tableName} created now`);
    const below = (await descendants(started.child.pid!)).map(({ args }) => args);
    expect(below.some((args) => args.includes('bin/local.ts'))).toBe(true);
    expect(below.filter((args) => /DynamoDBLocal\.jar|java/.test(args))).toEqual([]);
    expect(await listening(env.DYNAMODB_PORT)).toBe(false);
    expect(existsSync(join(env.DATA_DIR, 'shared-local-instance.db'))).toBe(false);

    const { Table } = await store.client.send(new DescribeTableCommand({ TableName: tableName }));
    expect(Table?.TableStatus).toBe('ACTIVE');
    expect(await teams.get(storeDeps(tableName).table, started.teamId)).toMatchObject({ team_id: started.teamId });
    const answer = await request(started.url, '/license/get', 'POST', '{nope', { 'x-api-key': started.apiKey });
    expect(answer.body).toMatchObject({ error_code: 'INVALID_INPUT' });
  }, 90_000);

  it('reuses an existing table as it is and serves its data, replacing a demo owner the store does not know', async () => {
    const tableName = `external-${randomUUID()}`;
    await store.client.send(new CreateTableCommand(createTableInput(tableName)));
    const deps = storeDeps(tableName);
    const owner = await createOwner(deps);
    const license = await seedLicense(deps, await seedSubscription(deps, owner));
    const env = await externalEnv(tableName);
    const stale = { team_id: randomUUID(), app_id: randomUUID(), api_key: `lsk_${'s'.repeat(43)}` };
    mkdirSync(env.DATA_DIR);
    writeFileSync(join(env.DATA_DIR, 'demo-owner.json'), JSON.stringify(stale));

    const started = await npmStart(env, running);

    expect(started.banner).toContain(`table ${tableName} already there`);
    const served = await request(started.url, '/license/get', 'POST', { license_key: license.key }, owner.auth);
    expect(served.status).toBe(200);
    expect(served.body.data).toMatchObject({ key: license.key });
    const ttl = await store.client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
    expect(ttl.TimeToLiveDescription?.TimeToLiveStatus).toBe('DISABLED');

    expect(started.apiKey).not.toBe(stale.api_key);
    const demo = await request(started.url, '/license/get', 'POST', '{nope', { 'x-api-key': started.apiKey });
    expect(demo.body).toMatchObject({ error_code: 'INVALID_INPUT' });
  }, 90_000);
});

describe('npm run admin with DYNAMODB_ENDPOINT', () => {
  it('bootstraps the owner into that store, creating the table, without starting a store', async () => {
    const tableName = `external-${randomUUID()}`;
    const env = await externalEnv(tableName);

    const { stdout } = await run('npm', ['run', '-s', 'admin', '--', 'bootstrap', '--json'], { cwd: root, env, timeout: 60_000 });

    const owner = JSON.parse(stdout) as { team_id: string; app_id: string };
    const deps = storeDeps(tableName);
    expect(await teams.get(deps.table, owner.team_id)).toMatchObject({ team_id: owner.team_id });
    expect(await apps.get(deps.table, owner.app_id)).toMatchObject({ team_id: owner.team_id, status: 'active' });
    // Only the master key of signing keys is kept there: no embedded store's files.
    expect(readdirSync(env.DATA_DIR)).toEqual(['master.key']);
  }, 90_000);
});
