import type middy from '@middy/core';
import httpCors, { type Options as CorsOptions } from '@middy/http-cors';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Side } from '../../routes';
import type { Config } from '../config';
import { edgeErrors, ServiceError } from './errors';
import { describeError, type Logger } from '../logger';

/**
 * What API Gateway's REST proxy integration hands a Lambda. Inside the Middy
 * stack its header names are lower-cased and its `body` holds the parsed JSON.
 */
export type HttpEvent = APIGatewayProxyEvent;
type Request = middy.Request<HttpEvent, APIGatewayProxyResult>;
type Middleware = middy.MiddlewareObj<HttpEvent, APIGatewayProxyResult>;

interface CorsPolicy {
  origin: string;
  methods: string;
  headers: string;
  maxAgeSeconds: number;
  /** Response headers a browser script may read. */
  exposeHeaders?: string;
}

/**
 * The client routes' headers of docs/client-api.md#answers-cors-and-retries, word for word. Management routes also allow the
 * API key header so browsers may call them. The Lambdas (through @middy/http-cors),
 * API Gateway's preflight mocks and its gateway responses all read this one policy.
 */
const corsPolicies: Record<Side, Omit<CorsPolicy, 'origin'>> = {
  // Plus the signature headers (docs/client-api.md, "Signed answers and offline tokens"), so browser clients can verify answers.
  client: {
    methods: 'POST, OPTIONS',
    headers: 'Content-Type, Authorization',
    maxAgeSeconds: 86400,
    exposeHeaders: 'Signature, Signature-Input, Content-Digest',
  },
  management: { methods: 'POST, OPTIONS', headers: 'Content-Type, Authorization, x-api-key', maxAgeSeconds: 86400 },
};

/** Client routes allow every origin (docs/client-api.md, its introduction); management routes the deployment's (Config.managementCorsOrigin). */
function corsPolicy(side: Side, managementOrigin: string): CorsPolicy {
  return { ...corsPolicies[side], origin: side === 'management' ? managementOrigin : '*' };
}

export function corsHeaders(side: Side, managementOrigin: string): Record<string, string> {
  const policy = corsPolicy(side, managementOrigin);
  return {
    'Access-Control-Allow-Origin': policy.origin,
    'Access-Control-Allow-Methods': policy.methods,
    'Access-Control-Allow-Headers': policy.headers,
    'Access-Control-Max-Age': String(policy.maxAgeSeconds),
    ...(policy.exposeHeaders ? { 'Access-Control-Expose-Headers': policy.exposeHeaders } : {}),
  };
}

/** The CORS headers of the side are added by the `cors` middleware, or by the local server outside Middy. */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return { statusCode: status, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/**
 * The side's CORS headers on every answer, errors included, and the OPTIONS
 * preflight answered 204 before any parsing (http-cors does that only with
 * `disableBeforePreflightResponse: false`; its default leaves preflight to the handler).
 */
export function cors(side: Side, managementOrigin: () => string | Promise<string>): Middleware {
  let middleware: Middleware | undefined;
  // The origin is in the config, which the handler's deps resolve on the first request.
  const resolved = async (): Promise<Middleware> => {
    if (middleware) return middleware;
    const policy = corsPolicy(side, await managementOrigin());
    const options: CorsOptions = {
      origin: policy.origin,
      methods: policy.methods,
      headers: policy.headers,
      maxAge: policy.maxAgeSeconds,
      exposeHeaders: policy.exposeHeaders,
      disableBeforePreflightResponse: false,
    };
    middleware = httpCors(options) as Middleware;
    return middleware;
  };
  return {
    before: async (request) => (await resolved()).before?.(request),
    after: async (request) => (await resolved()).after?.(request),
    onError: async (request) => (await resolved()).onError?.(request),
  };
}

/** Header names lower-cased, so `RequestInfo.header` is a plain property lookup. */
export const normalizeHeaders = (): Middleware => httpHeaderNormalizer() as Middleware;

/** Client bodies are tiny; management bulk bodies carry up to 1000 keys. */
export const bodyLimits: Record<Side, number> = { client: 64 * 1024, management: 256 * 1024 };

/**
 * Ours because no Middy package does either: Middy has no body size limit, and
 * http-json-body-parser reads a missing body (API Gateway sends `null`) as the JSON
 * value `null` where the API answers "not valid JSON". The limit counts the UTF-8
 * bytes of the text the parser will read (a base64 body decoded first).
 */
export function bodyGuard(side: Side): Middleware {
  return {
    before: ({ event }: Request) => {
      if (event.body === null || event.body === undefined) throw edgeErrors.invalidJson(side);
      const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
      if (Buffer.byteLength(text, 'utf8') > bodyLimits[side]) throw edgeErrors.bodyTooLarge(side);
    },
  };
}

const parserOptions = {
  // Bodies are JSON whatever Content-Type the caller sent. The option is in the
  // package's code but missing from its type declarations.
  disableContentTypeCheck: true,
} as Parameters<typeof httpJsonBodyParser>[0];

/** The body bytes as received, by event: the parser replaces `event.body`, and a request's Content-Digest covers the bytes. */
const rawBodies = new WeakMap<HttpEvent, Uint8Array>();

/** The request body exactly as API Gateway handed it over (base64 decoded when it says so); empty before parsing. */
export const rawBodyOf = (event: HttpEvent): Uint8Array => rawBodies.get(event) ?? new Uint8Array();

/** Replaces `event.body` by the parsed JSON, keeping its bytes for `rawBodyOf`; its failures are rendered by `errorRenderer`. */
export function jsonBody(): Middleware {
  const parser = httpJsonBodyParser(parserOptions) as Middleware;
  return {
    before: (request: Request) => {
      const { event } = request;
      if (typeof event.body === 'string') rawBodies.set(event, Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8'));
      return parser.before?.(request);
    },
  };
}

/** With the content-type check off, the parser fails only on text that is not JSON. */
function isParserFailure(error: unknown): boolean {
  return error instanceof Error && (error.cause as { package?: unknown } | undefined)?.package === '@middy/http-json-body-parser';
}

type RendererDeps = { config: Config; logger: Logger };

/**
 * The one place errors become responses. Expected errors render their own body;
 * anything else is a server fault: logged with its cause, answered 500 without a
 * stack unless debug mode is on. Ours, not @middy/http-error-handler: that one
 * answers with the error's message as the whole body and a fixed fallback for
 * faults, where the API needs a JSON body in the side's shape (docs/client-api.md, docs/management-api.md)
 * and, in debug mode, the fault's own message and type.
 */
export function errorRenderer(side: Side, deps: () => RendererDeps | Promise<RendererDeps>): Middleware {
  return {
    onError: async (request: Request) => {
      const { event } = request;
      const error = isParserFailure(request.error) ? edgeErrors.invalidJson(side) : request.error;
      if (error instanceof ServiceError) {
        request.response = jsonResponse(error.status, error.body(), error.headers());
        return;
      }
      const { config, logger } = await deps();
      logger.error('request failed', { request_id: event.requestContext?.requestId, path: event.resource, ...describeError(error) });
      const fault = edgeErrors.serverError(side);
      const body: Record<string, unknown> = fault.body();
      if (config.debug) {
        body.debug_error = error instanceof Error ? error.message : String(error);
        if (event.resource === '/register') body.debug_type = error instanceof Error ? error.name : typeof error;
      }
      request.response = jsonResponse(fault.status, body);
    },
  };
}
