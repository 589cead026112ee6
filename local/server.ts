import { randomUUID } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import { invalidApiKey, missingApiKey } from '#core/http/api-key-auth';
import type { Deps } from '#core/deps';
import { canonicalUuid } from '#core/ids';
import { ClientError, edgeErrors, ManagementError, rateLimited, type ServiceError } from '#core/http/errors';
import { corsHeaders, jsonResponse, type HttpEvent } from '#core/http/middleware';
import { signedFields } from '#core/http/file-codes';
import { authorize, headerValue } from '../functions/authorizer/handler';
import { findInboundRoute, findRoute, needsApiKey, sideOf, type Group, type Side } from '../functions/routes';
import { serveApiReference } from './api-reference';
import { serveSite } from './dashboard';
import { redeemSignInCode, signInBodyBytes, signInPath, type SignInCodes } from './sign-in';
import { createGroupHandlers } from './handlers';
import { RateLimiter, type RateLimit } from './rate-limit';
import { serveAs } from './serving';

export interface LocalServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface ServerOptions {
  deps: Deps;
  port: number;
  host?: string;
  /** Per-owner management throttle like the usage plan's; undefined: no throttle. */
  rateLimit?: RateLimit;
  /** Per-application throttle of the client routes, keyed on the body's app_id; undefined: no throttle. */
  clientRateLimit?: RateLimit;
  /** Per-application throttle of the inbound routes (POST /stripe/webhook/<app_id>), keyed on the path's app_id; undefined: no throttle. */
  inboundRateLimit?: RateLimit;
  /** Serve the built dashboard at /dashboard/; its API calls go to `apiUrl`, this server by default. */
  dashboard?: { dir: string; apiUrl?: string; signInCodes?: SignInCodes };
  /** Serve the built customer portal's files on GET at /portal/ (its routes there are POSTs); its API calls go to `apiUrl`, this server by default. */
  portal?: { dir: string; apiUrl?: string };
}

/** API Gateway's own payload limit; the handlers enforce the much smaller documented limits. */
const maxBodyBytes = 10 * 1024 * 1024;

class BodyTooLarge extends Error {}

/**
 * The body, or BodyTooLarge once it has all arrived. An oversize body is read
 * to its end and dropped rather than cut off: closing a socket with unread
 * bytes resets it, and the client would lose the 413 with them.
 */
function readBody(request: IncomingMessage, limit = maxBodyBytes): Promise<string> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else chunks.length = 0;
    });
    request.on('end', () => (size > limit ? reject(new BodyTooLarge()) : resolveBody(Buffer.concat(chunks).toString('utf8'))));
    request.on('error', reject);
  });
}

/** RFC 3986 characters of a path and query (no `[`, `]`, spaces, quotes or controls); `%` only as an escape. */
const originForm = /^\/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*$/;

/** The path of a request target in origin form; undefined for anything else, which no route or page can mean. */
function requestPath(target: string): string | undefined {
  return originForm.test(target) ? new URL(`http://local${target}`).pathname : undefined;
}

/** The side whose body shape a request gets: its route's, else the management shape, as for an unknown path. */
function sideOfPath(pathname: string): Side {
  const route = findRoute(pathname);
  return route ? sideOf(route.group) : 'management';
}

function flatHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return headers;
}

/** A route as the server dispatches it: its path (a template for inbound routes), its group, and the parameters of the path as sent. */
interface Target {
  path: string;
  group: Group;
  requestPath: string;
  parameters: Record<string, string> | null;
}

/** What API Gateway's REST proxy integration would hand the Lambda for this request. */
function proxyEvent(route: Target, request: IncomingMessage, body: string, sourceIp: string): HttpEvent {
  const headers = flatHeaders(request);
  const requestId = randomUUID();
  return {
    resource: route.path,
    path: route.requestPath,
    httpMethod: request.method ?? 'POST',
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: route.parameters,
    stageVariables: null,
    body,
    isBase64Encoded: false,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: request.method ?? 'POST',
      identity: { sourceIp } as HttpEvent['requestContext']['identity'],
      path: route.requestPath,
      stage: 'local',
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: route.path,
    },
  };
}

function lambdaContext(requestId: string): Context {
  const deadline = Date.now() + 29_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'local',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:local',
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: 'local',
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/**
 * The gateway's part for management routes: the same authorizer code, its verdict
 * rendered as on AWS, then the owner's usage-plan throttle.
 */
async function runGateway(deps: Deps, event: HttpEvent, limiter: RateLimiter | undefined): Promise<ServiceError | undefined> {
  const apiKey = headerValue(event.headers, 'x-api-key');
  if (!apiKey) return missingApiKey();
  const result = await serveAs('authorizer', () =>
    authorize(deps, {
      type: 'REQUEST',
      methodArn: `arn:aws:execute-api:local:000000000000:local/local/POST${event.resource}`,
      headers: event.headers,
    } as Parameters<typeof authorize>[1]),
  );
  if (result.policyDocument.Statement.some((statement) => statement.Effect === 'Deny')) {
    return invalidApiKey();
  }
  event.requestContext.authorizer = result.context ?? null;
  const verdict = limiter?.take(result.principalId);
  if (verdict && !verdict.allowed) {
    return rateLimited(verdict.retryAfterSeconds);
  }
  return undefined;
}

/**
 * The client routes' per-application throttle. The app is named only in the body (or in the
 * code a license-file route takes there); a body without a usable app_id is left to the
 * handler, which answers its 400 or 403.
 */
function throttleApp(path: string, body: string, limiter: RateLimiter | undefined): APIGatewayProxyResult | undefined {
  if (!limiter) return undefined;
  let appId: unknown;
  try {
    appId = signedFields(path, JSON.parse(body)).appId;
  } catch {
    return undefined;
  }
  if (typeof appId !== 'string' || appId === '') return undefined;
  const verdict = limiter.take(canonicalUuid(appId));
  if (verdict.allowed) return undefined;
  return jsonResponse(429, new ClientError(429, 'RATE_LIMITED').body(), { ...corsHeaders('client', '*'), 'Retry-After': String(verdict.retryAfterSeconds) });
}

/** With its length, as API Gateway answers (a 204 has none): a client reads the end of the answer without chunked framing. */
function send(response: ServerResponse, result: APIGatewayProxyResult) {
  const length = result.statusCode === 204 ? {} : { 'Content-Length': String(Buffer.byteLength(result.body ?? '')) };
  response.writeHead(result.statusCode, { ...(result.headers as Record<string, string>), ...length });
  response.end(result.body);
}

function sendError(response: ServerResponse, side: Side, error: ServiceError, managementOrigin: string) {
  send(response, jsonResponse(error.status, error.body(), { ...corsHeaders(side, managementOrigin), ...error.headers() }));
}

/** Sockets already answered: the parser reports every later chunk of a broken request again. */
const answeredSockets = new WeakSet<Duplex>();

/**
 * Requests Node's parser refuses never reach `serve`: headers over
 * `maxHeaderSize` (16 KiB), malformed HTTP. They are answered here in the
 * management shape (no route was read to take a side from), then the socket
 * is half-closed and left to read what the client still sends, so the answer
 * is not lost to a reset; a client that never closes is cut off after a while.
 * A request that timed out has no one waiting: it is only closed.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, managementOrigin: string) {
  if (answeredSockets.has(socket)) return;
  answeredSockets.add(socket);
  if (error.code === 'ECONNRESET' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || !socket.writable) {
    socket.destroy();
    return;
  }
  const answer =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? edgeErrors.headersTooLarge()
      : error.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
        ? edgeErrors.bodyTooLarge('management')
        : edgeErrors.malformedRequest();
  const body = JSON.stringify(answer.body());
  const headers = {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
    ...corsHeaders('management', managementOrigin),
    ...answer.headers(),
  };
  const head = [`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  setTimeout(() => socket.destroy(), clientErrorLingerMs).unref();
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}

/** How long a refused request's socket may keep sending before it is destroyed. */
const clientErrorLingerMs = 5_000;

export async function startLocalServer(options: ServerOptions): Promise<LocalServer> {
  const { deps } = options;
  const handlers = createGroupHandlers(deps);
  const limiter = options.rateLimit ? new RateLimiter(options.rateLimit) : undefined;
  const appLimiter = options.clientRateLimit ? new RateLimiter(options.clientRateLimit) : undefined;
  const inboundLimiter = options.inboundRateLimit ? new RateLimiter(options.inboundRateLimit) : undefined;
  let baseUrl = '';

  const serve = async (request: IncomingMessage, response: ServerResponse) => {
    const target = request.url ?? '/';
    const pathname = requestPath(target);
    if (pathname === undefined) {
      await readBody(request).catch(() => undefined);
      const side = sideOfPath(target.split(/[?#]/, 1)[0]!);
      sendError(response, side, edgeErrors.malformedTarget(side), deps.config.managementCorsOrigin);
      return;
    }
    if (options.dashboard && (request.method === 'GET' || request.method === 'HEAD')) {
      const site = { dir: options.dashboard.dir, apiUrl: options.dashboard.apiUrl ?? baseUrl };
      if (await serveSite('dashboard', site, pathname, response)) return;
    }
    // A route's own path under /portal/ stays the API's, which answers other methods than POST with 405.
    if (options.portal && (request.method === 'GET' || request.method === 'HEAD') && !findRoute(pathname)) {
      if (await serveSite('portal', { dir: options.portal.dir, apiUrl: options.portal.apiUrl ?? baseUrl }, pathname, response)) return;
    }
    if (options.dashboard?.signInCodes && request.method === 'POST' && pathname === signInPath) {
      // An oversize body is no code: it is refused like any other that is not one.
      redeemSignInCode(options.dashboard.signInCodes, await readBody(request, signInBodyBytes).catch(() => ''), response);
      return;
    }
    if ((request.method === 'GET' || request.method === 'HEAD') && (await serveApiReference(baseUrl, pathname, response))) return;
    const known = findRoute(pathname);
    const inbound = known ? undefined : findInboundRoute(pathname);
    const route: Target | undefined = known
      ? { ...known, requestPath: pathname, parameters: null }
      : inbound && { path: inbound.route.path, group: inbound.route.group, requestPath: pathname, parameters: inbound.parameters };
    if (!route) {
      sendError(response, 'management', new ManagementError('NOT_FOUND', `No route ${pathname}`), deps.config.managementCorsOrigin);
      return;
    }
    const side = sideOf(route.group);
    // An inbound route is called by a server, never by a browser: no preflight, as on API Gateway.
    if (request.method !== 'POST' && (request.method !== 'OPTIONS' || inbound)) {
      sendError(response, side, edgeErrors.methodNotAllowed(side), deps.config.managementCorsOrigin);
      return;
    }
    let body: string;
    try {
      body = await readBody(request);
    } catch (error) {
      if (error instanceof BodyTooLarge) sendError(response, side, edgeErrors.bodyTooLarge(side), deps.config.managementCorsOrigin);
      return;
    }
    const event = proxyEvent(route, request, body, request.socket.remoteAddress ?? '');
    if (inbound) {
      const verdict = inboundLimiter?.take(`${inbound.route.path}#${inbound.parameters.app_id}`);
      if (verdict && !verdict.allowed) {
        sendError(response, side, rateLimited(verdict.retryAfterSeconds), deps.config.managementCorsOrigin);
        return;
      }
    } else if (side === 'management' && request.method === 'POST' && needsApiKey(known!)) {
      const denied = await runGateway(deps, event, limiter);
      if (denied) {
        sendError(response, side, denied, deps.config.managementCorsOrigin);
        return;
      }
    }
    // The portal's routes have no API key and so no usage plan: on AWS the stage throttles them as it does client
    // routes; here the client throttle's budget applies per source address.
    if (route.group === 'portal' && request.method === 'POST') {
      const verdict = appLimiter?.take(`portal#${request.socket.remoteAddress ?? ''}`);
      if (verdict && !verdict.allowed) {
        sendError(response, side, rateLimited(verdict.retryAfterSeconds), '*');
        return;
      }
    }
    if (side === 'client' && request.method === 'POST') {
      const throttled = throttleApp(route.path, body, appLimiter);
      if (throttled) {
        send(response, throttled);
        return;
      }
    }
    const result = await handlers[route.group](event, lambdaContext(event.requestContext.requestId));
    send(response, result);
  };

  const server: Server = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      deps.logger.error('local server fault', { error_message: error instanceof Error ? error.message : String(error) });
      if (!response.headersSent) sendError(response, 'management', edgeErrors.serverError('management'), deps.config.managementCorsOrigin);
      else response.end();
    });
  });
  server.keepAliveTimeout = 5_000;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(error, socket, deps.config.managementCorsOrigin));

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((listening, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => listening());
  });
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url: baseUrl,
    port,
    close: () =>
      new Promise<void>((closed) => {
        server.closeAllConnections();
        server.close(() => closed());
      }),
  };
}
