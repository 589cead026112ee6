import { randomBytes, randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { readConfig, type Config } from '#core/config';
import { createDeps, type Deps } from '#core/deps';
import type { Clock } from '#shared/clock';
import { localKeyVault } from '#core/key-vault';
import { createLogger, type Logger, type LogSink } from '#core/logger';
import { createDynamoClient } from '#data/db';
import type { RateLimit } from '../../local/rate-limit';
import { startLocalServer, type LocalServer } from '../../local/server';
import { ensureTable } from '../../local/store';
import { captureDynamoCalls, kmsShapedVault, sesShapedMailer, sqsShapedQueue } from './aws-calls';
import { outboxMailer } from '#core/mail/outbox';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeliveryQueue } from '#core/deps';
import type { AttemptMessage } from '../../functions/delivery/queue';
import { recordingSink, recordSecretsIn, recordTableSecrets } from './log-evidence';

/** Lines a test's deps logged, for assertions on what reaches the logs. */
export interface CapturedLogs {
  lines: string[];
}

export interface TestEnv {
  deps: Deps;
  config: Config;
  logs: CapturedLogs;
  /** Where another logger of the test writes to share `logs` (and the run's log scan). */
  logSink: LogSink;
  /** The DynamoDB client under `deps`, e.g. for `meterDynamo`. */
  client: DynamoDBClient;
  /** What the webhook routes queue (redeliveries): kept in `sent`, and handed to `target` once a test set one (test/support/webhooks.ts). */
  webhookQueue: { sent: AttemptMessage[]; target: DeliveryQueue | undefined };
  /** The directory every email the served code sends lands in, one `.eml` file each (test/support/outbox.ts reads it). */
  outbox: string;
}

/** A client of the run's DynamoDB Local whose served calls the IAM conformance check judges (test/support/aws-calls.ts). */
export function createTestClient(config: Config): DynamoDBClient {
  const client = createDynamoClient(config);
  captureDynamoCalls(client);
  return client;
}

/** A fresh table on the run's DynamoDB Local, so test files never see each other's items. */
export async function createTestEnv(options: { config?: Partial<Config>; clock?: Clock } = {}): Promise<TestEnv> {
  const base = readConfig();
  if (!base.dynamodbEndpoint) throw new Error('DYNAMODB_ENDPOINT is not set: run the tests with npm test');
  const config: Config = { ...base, tableName: `test-${randomUUID()}`, bcryptCost: 4, logLevel: 'debug', ...options.config };
  const client = createTestClient(config);
  await ensureTable(client, config.tableName);
  recordTableSecrets(client);
  const logs: CapturedLogs = { lines: [] };
  const logSink = recordingSink(logs.lines);
  const logger: Logger = createLogger(config.logLevel, {}, logSink);
  // The deployed functions' KMS vault over a local key: the KMS calls the code makes are checked against the role's grants.
  const keyVault = kmsShapedVault(localKeyVault(randomBytes(32)));
  const webhookQueue: TestEnv['webhookQueue'] = { sent: [], target: undefined };
  const forward: DeliveryQueue = {
    async send(message, delaySeconds) {
      webhookQueue.sent.push(message);
      await webhookQueue.target?.send(message, delaySeconds);
    },
  };
  // Loopback receivers are the tests' targets, as in npm start.
  const webhooks = { queue: sqsShapedQueue(forward), policy: 'local' as const };
  // The deployed functions' SES mailer, its calls checked against the roles' grants, delivering to an outbox of the test's own.
  const outbox = join(mkdtempSync(join(tmpdir(), 'licensing-test-mail-')), 'outbox');
  const mailer = sesShapedMailer(outboxMailer(outbox, logger));
  return { deps: createDeps(config, { client, logger, clock: options.clock, keyVault, webhooks, mailer }), config, logs, logSink, client, webhookQueue, outbox };
}

export interface TestServer extends TestEnv {
  server: LocalServer;
  /** POSTs JSON (or a raw string) and returns status, headers and parsed body. */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<HttpResult>;
  close(): Promise<void>;
}

export interface HttpResult {
  status: number;
  headers: Headers;
  body: any;
}

export async function startTestServer(
  options: Parameters<typeof createTestEnv>[0] & { rateLimit?: RateLimit; clientRateLimit?: RateLimit; inboundRateLimit?: RateLimit } = {},
): Promise<TestServer> {
  const env = await createTestEnv(options);
  const server = await startLocalServer({
    deps: env.deps,
    port: 0,
    rateLimit: options.rateLimit,
    clientRateLimit: options.clientRateLimit,
    inboundRateLimit: options.inboundRateLimit,
  });
  env.deps.config.portalUrl ??= `${server.url}/portal/`;
  return {
    ...env,
    server,
    post: (path, body, headers = {}) => request(server.url, path, 'POST', body, headers),
    close: async () => {
      await server.close();
      env.deps.table.doc.destroy();
    },
  };
}

export async function request(
  baseUrl: string,
  path: string,
  method: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  recordSecretsIn({ body, headers });
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: method === 'POST' ? (typeof body === 'string' ? body : JSON.stringify(body)) : undefined,
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // A body that is not JSON is returned as text for the assertion to show.
  }
  return { status: response.status, headers: response.headers, body: parsed };
}
