import * as http from 'node:http';
import * as https from 'node:https';
import { backoffDelay, sleep } from '../backoff';
import { signRequest, type Credentials } from './sigv4';

/**
 * A DynamoDB client over the service's JSON protocol: SigV4-signed POSTs on
 * kept-alive connections, with timeouts and retries. It replaces the AWS SDK
 * on the Lambda path because importing `@aws-sdk/client-dynamodb` alone takes
 * longer than the whole cold-start budget; everything the SDK did for us that
 * matters here (signing, retrying throttling, 5xx, timeouts and dropped
 * connections with jittered backoff, typed errors with `CancellationReasons`)
 * is in this file.
 */

/** How the client gives up: per attempt, and attempts in all. */
export interface ClientLimits {
  requestTimeoutMs: number;
  connectionTimeoutMs: number;
  maxAttempts: number;
}

export interface DynamoClientOptions {
  region: string;
  /** Unset: the region's public DynamoDB endpoint. */
  endpoint?: string;
  /** Fixed credentials, or a provider asked again shortly before the ones it gave expire. */
  credentials: Credentials | (() => Promise<Credentials>);
  limits: ClientLimits;
}

/** A request or answer in DynamoDB's wire format (attribute values, not plain values). */
export type Wire = Record<string, any>;

export interface DynamoCall {
  /** The DynamoDB action: GetItem, TransactWriteItems, ... */
  operation: string;
  input: Wire;
}

export type Send = (call: DynamoCall) => Promise<Wire>;
export type Interceptor = (call: DynamoCall, next: Send) => Promise<Wire>;

/** An error answer from DynamoDB; `name` is its type (ConditionalCheckFailedException, ...) and any detail it carries is copied on. */
export class DynamoError extends Error {
  readonly statusCode: number;
  readonly CancellationReasons?: { Code?: string; Message?: string; Item?: Wire }[];

  constructor(name: string, message: string, statusCode: number, details: Wire = {}) {
    super(message);
    this.name = name;
    this.statusCode = statusCode;
    if (details.CancellationReasons) this.CancellationReasons = details.CancellationReasons;
  }
}

const throttlingNames = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TransactionInProgressException',
]);
const networkCodes = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);

/** What the SDK's standard retry strategy retries: throttling, server errors, timeouts and dropped connections. */
function isRetryable(error: unknown): boolean {
  // Read by shape, not instanceof: Node's network errors may come from another realm (jest's VM, for one).
  if (typeof error !== 'object' || error === null) return false;
  const { name, code } = error as { name?: string; code?: string };
  if (throttlingNames.has(name ?? '') || name === 'TimeoutError') return true;
  if (error instanceof DynamoError) return error.statusCode >= 500;
  return networkCodes.has(code ?? '');
}

const retryDelays = { baseMs: 50, maxMs: 2000 };

function timeoutError(message: string): Error {
  return Object.assign(new Error(message), { name: 'TimeoutError' });
}

function errorFrom(status: number, text: string): DynamoError {
  let body: Wire = {};
  try {
    body = JSON.parse(text) as Wire;
  } catch {
    // Not JSON (a proxy's error page, say): the status says enough.
  }
  const type = typeof body.__type === 'string' ? body.__type.slice(body.__type.lastIndexOf('#') + 1) : undefined;
  const message = body.message ?? body.Message ?? (text.slice(0, 200) || `HTTP ${status}`);
  return new DynamoError(type ?? (status >= 500 ? 'InternalServerError' : 'UnknownError'), String(message), status, body);
}

export function regionEndpoint(region: string): string {
  return `https://dynamodb.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}`;
}

export class DynamoClient {
  private readonly url: URL;
  private readonly agent: http.Agent;
  private readonly transport: typeof http | typeof https;
  private readonly callInterceptors: Interceptor[] = [];
  private readonly attemptInterceptors: Interceptor[] = [];
  private credentials?: Promise<Credentials>;

  constructor(private readonly options: DynamoClientOptions) {
    this.url = new URL(options.endpoint ?? regionEndpoint(options.region));
    this.transport = this.url.protocol === 'https:' ? https : http;
    this.agent = new this.transport.Agent({ keepAlive: true, maxSockets: 50 });
  }

  /**
   * Adds an interceptor around each call (`call`: once, outside the retries) or
   * around each attempt (`attempt`: inside them, once per request sent). The
   * benchmark's meter and the fault-injection tests hook in here.
   */
  intercept(stage: 'call' | 'attempt', interceptor: Interceptor): void {
    (stage === 'call' ? this.callInterceptors : this.attemptInterceptors).push(interceptor);
  }

  async send(operation: string, input: Wire): Promise<Wire> {
    return chain(this.callInterceptors, (call) => this.withRetries(call))({ operation, input });
  }

  /** Closes the kept-alive connections, so a process can exit. */
  destroy(): void {
    this.agent.destroy();
  }

  private async withRetries(call: DynamoCall): Promise<Wire> {
    const attempt = chain(this.attemptInterceptors, (sent) => this.request(sent));
    for (let attempts = 1; ; attempts++) {
      try {
        return await attempt(call);
      } catch (error) {
        if (attempts >= this.options.limits.maxAttempts || !isRetryable(error)) throw error;
        await sleep(backoffDelay(attempts - 1, retryDelays));
      }
    }
  }

  private currentCredentials(): Promise<Credentials> {
    const { credentials } = this.options;
    if (typeof credentials !== 'function') return Promise.resolve(credentials);
    const refresh = () => {
      this.credentials = credentials();
      // A failed lookup is not kept: the next call asks again.
      this.credentials.catch(() => (this.credentials = undefined));
      return this.credentials;
    };
    if (!this.credentials) return refresh();
    return this.credentials.then((current) =>
      current.expiration && current.expiration.getTime() - Date.now() < 5 * 60_000 ? refresh() : current,
    );
  }

  private async request(call: DynamoCall): Promise<Wire> {
    const body = JSON.stringify(call.input);
    const headers = signRequest(
      {
        method: 'POST',
        host: this.url.host,
        path: this.url.pathname,
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `DynamoDB_20120810.${call.operation}` },
        body,
      },
      await this.currentCredentials(),
      this.options.region,
      'dynamodb',
    );
    const { status, text } = await this.post(body, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
    if (status !== 200) throw errorFrom(status, text);
    return text ? (JSON.parse(text) as Wire) : {};
  }

  private post(body: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
    const { requestTimeoutMs, connectionTimeoutMs } = this.options.limits;
    return new Promise((resolve, reject) => {
      const timers: NodeJS.Timeout[] = [];
      const settle = <T>(done: (value: T) => void) => (value: T) => {
        for (const timer of timers) clearTimeout(timer);
        done(value);
      };
      const request = this.transport.request(
        { protocol: this.url.protocol, hostname: this.url.hostname, port: this.url.port, path: this.url.pathname, method: 'POST', headers, agent: this.agent },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => settle(resolve)({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          response.on('error', settle(reject));
        },
      );
      request.on('error', settle(reject));
      request.on('socket', (socket) => {
        if (!socket.connecting) return;
        const connecting = setTimeout(() => request.destroy(timeoutError(`no connection to DynamoDB within ${connectionTimeoutMs} ms`)), connectionTimeoutMs);
        timers.push(connecting);
        socket.once('connect', () => clearTimeout(connecting));
      });
      timers.push(setTimeout(() => request.destroy(timeoutError(`no answer from DynamoDB within ${requestTimeoutMs} ms`)), requestTimeoutMs));
      request.end(body);
    });
  }
}

function chain(interceptors: Interceptor[], last: Send): Send {
  return interceptors.reduceRight<Send>((next, interceptor) => (call) => interceptor(call, next), last);
}
