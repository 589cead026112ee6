import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { cancellationCodes, isConditionFailure } from '#data/db';
import { DynamoClient, DynamoError, regionEndpoint, type ClientLimits } from '#data/dynamo/client';
import type { Credentials } from '#data/dynamo/sigv4';
import { freePort } from '../../local/store';

/**
 * The client against a loopback stand-in for DynamoDB that answers as the
 * service does (JSON 1.0 protocol, `__type` error names), so what the client
 * sends, retries and throws is checked without AWS.
 */
interface Received {
  headers: IncomingMessage['headers'];
  body: any;
}

let server: Server;
let endpoint: string;
let received: Received[];
let connections: number;
let answer: (request: Received, index: number) => { status: number; body?: unknown } | 'hang';

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk));
    request.on('end', () => {
      const entry = { headers: request.headers, body: JSON.parse(text) };
      received.push(entry);
      const reply = answer(entry, received.length);
      if (reply === 'hang') return;
      response.writeHead(reply.status, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', () => listening()));
  endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((closed) => server.close(() => closed()));
});

const limits: ClientLimits = { requestTimeoutMs: 300, connectionTimeoutMs: 300, maxAttempts: 4 };
const clients: DynamoClient[] = [];

function client(options: Partial<ConstructorParameters<typeof DynamoClient>[0]> = {}) {
  const created = new DynamoClient({ region: 'eu-west-1', endpoint, credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' }, limits, ...options });
  clients.push(created);
  return created;
}

beforeEach(() => {
  received = [];
  connections = 0;
  answer = () => ({ status: 200, body: {} });
});

afterEach(() => {
  for (const created of clients.splice(0)) created.destroy();
});

const error = (type: string, message: string, extra: Record<string, unknown> = {}) => ({ status: 400, body: { __type: `com.amazonaws.dynamodb.v20120810#${type}`, message, ...extra } });

describe('the DynamoDB client', () => {
  it('sends a signed JSON 1.0 request naming the action, and returns the answer', async () => {
    answer = () => ({ status: 200, body: { Item: { pk: { S: 'A' } } } });

    const output = await client().send('GetItem', { TableName: 't', Key: { pk: { S: 'A' } } });

    expect(output).toEqual({ Item: { pk: { S: 'A' } } });
    const [request] = received;
    expect(request!.body).toEqual({ TableName: 't', Key: { pk: { S: 'A' } } });
    expect(request!.headers['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
    expect(request!.headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(request!.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKID\/\d{8}\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-target, Signature=[0-9a-f]{64}$/,
    );
  });

  it('keeps one connection alive across requests, so a warm Lambda pays no new handshake per check', async () => {
    const dynamo = client();
    for (let i = 0; i < 5; i++) await dynamo.send('GetItem', { TableName: 't' });
    expect(received).toHaveLength(5);
    expect(connections).toBe(1);
  });

  it('throws a failed condition at once under its DynamoDB name, without retrying', async () => {
    answer = () => error('ConditionalCheckFailedException', 'The conditional request failed');

    const thrown = await client().send('PutItem', { TableName: 't' }).catch((caught: unknown) => caught);

    expect(thrown).toBeInstanceOf(DynamoError);
    expect(isConditionFailure(thrown)).toBe(true);
    expect((thrown as Error).message).toBe('The conditional request failed');
    expect(received).toHaveLength(1);
  });

  it('carries the cancellation reasons of a cancelled transaction', async () => {
    answer = () => error('TransactionCanceledException', 'Transaction cancelled', { CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' }] });

    const thrown = await client().send('TransactWriteItems', { TransactItems: [] }).catch((caught: unknown) => caught);

    expect(cancellationCodes(thrown)).toEqual(['None', 'ConditionalCheckFailed']);
    expect(received).toHaveLength(1);
  });

  it('retries throttling up to its attempts and then throws it', async () => {
    answer = () => ({ status: 400, body: { __type: 'com.amazon.coral.availability#ThrottlingException', message: 'Rate of requests exceeds the allowed throughput.' } });

    const thrown = await client().send('BatchGetItem', {}).catch((caught: unknown) => caught);

    expect((thrown as Error).name).toBe('ThrottlingException');
    expect(received).toHaveLength(limits.maxAttempts);
  });

  it('retries a server error and returns the answer once DynamoDB recovers', async () => {
    answer = (_, index) => (index < 3 ? { status: index === 1 ? 500 : 503, body: index === 1 ? { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError' } : undefined } : { status: 200, body: { Count: 0 } });

    expect(await client().send('Query', {})).toEqual({ Count: 0 });
    expect(received).toHaveLength(3);
  });

  it('gives up on an attempt that gets no answer within the request timeout, and retries it', async () => {
    answer = () => 'hang';
    const started = Date.now();

    const thrown = await client({ limits: { ...limits, maxAttempts: 2 } }).send('GetItem', {}).catch((caught: unknown) => caught);

    expect((thrown as Error).name).toBe('TimeoutError');
    expect(received).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('retries a refused connection and then throws the network error', async () => {
    const closed = new DynamoClient({ region: 'local', endpoint: `http://127.0.0.1:${await freePort()}`, credentials: { accessKeyId: 'a', secretAccessKey: 'b' }, limits: { ...limits, maxAttempts: 2 } });
    clients.push(closed);
    let attempts = 0;
    closed.intercept('attempt', (call, next) => {
      attempts++;
      return next(call);
    });

    const thrown = await closed.send('GetItem', {}).catch((caught: unknown) => caught);

    expect((thrown as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    expect(attempts).toBe(2);
  });

  it('asks a credentials provider once, and again only when the credentials near their expiry', async () => {
    const handed: Credentials[] = [];
    const dynamo = client({
      credentials: async () => {
        handed.push({ accessKeyId: `KEY${handed.length + 1}`, secretAccessKey: 's', sessionToken: 'token', expiration: new Date(Date.now() + 3_600_000) });
        return handed.at(-1)!;
      },
    });

    await Promise.all([dynamo.send('GetItem', {}), dynamo.send('GetItem', {})]);
    // Time passes: the credentials now expire in a minute.
    handed[0]!.expiration = new Date(Date.now() + 60_000);
    await dynamo.send('GetItem', {});
    await dynamo.send('GetItem', {});

    expect(handed.map((credentials) => credentials.accessKeyId)).toEqual(['KEY1', 'KEY2']);
    expect(received.map((request) => String(request.headers.authorization).slice(28, 32))).toEqual(['KEY1', 'KEY1', 'KEY2', 'KEY2']);
    expect(received[0]!.headers['x-amz-security-token']).toBe('token');
  });

  it('runs call interceptors once per call and attempt interceptors once per request sent', async () => {
    answer = (_, index) => (index === 1 ? { status: 500 } : { status: 200, body: {} });
    const dynamo = client();
    const seen: string[] = [];
    dynamo.intercept('call', (call, next) => {
      seen.push(`call ${call.operation}`);
      return next({ ...call, input: { ...call.input, ReturnConsumedCapacity: 'TOTAL' } });
    });
    dynamo.intercept('attempt', (call, next) => {
      seen.push(`attempt ${call.operation}`);
      return next(call);
    });

    await dynamo.send('UpdateItem', { TableName: 't' });

    expect(seen).toEqual(['call UpdateItem', 'attempt UpdateItem', 'attempt UpdateItem']);
    expect(received.map((request) => request.body)).toEqual([
      { TableName: 't', ReturnConsumedCapacity: 'TOTAL' },
      { TableName: 't', ReturnConsumedCapacity: 'TOTAL' },
    ]);
  });

  it('uses the region’s public endpoint when none is configured', () => {
    expect(regionEndpoint('eu-central-1')).toBe('https://dynamodb.eu-central-1.amazonaws.com');
    expect(regionEndpoint('cn-north-1')).toBe('https://dynamodb.cn-north-1.amazonaws.com.cn');
  });
});
