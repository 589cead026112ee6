import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Side } from '../routes';
import type { Config } from './config';
import { edgeErrors, ServiceError } from './errors';
import { describeError, type Logger } from './logger';

export type HttpEvent = APIGatewayProxyEvent & { parsedBody?: unknown };
type Request = middy.Request<HttpEvent, APIGatewayProxyResult>;
type Middleware = middy.MiddlewareObj<HttpEvent, APIGatewayProxyResult>;

/** Spec 4.3, word for word. Management routes also allow the API key header so browsers may call them. */
export function corsHeaders(side: Side): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Methods': 'POST, OPTIONS',
    'Access-Control-Allow-Headers': side === 'client' ? 'Content-Type, Authorization' : 'Content-Type, Authorization, x-api-key',
    'Access-Control-Max-Age': '86400',
  };
}

export function jsonResponse(status: number, body: unknown, side: Side, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return {
    statusCode: status,
    headers: { 'Content-Type': 'application/json', ...corsHeaders(side), ...headers },
    body: JSON.stringify(body),
  };
}

/** Preflight answers 204 before any parsing; every other response gets the CORS headers on the way out. */
export function cors(side: Side): Middleware {
  return {
    before: (request: Request) => {
      if (request.event.httpMethod === 'OPTIONS') {
        return { statusCode: 204, headers: corsHeaders(side), body: '' };
      }
      return undefined;
    },
    after: (request: Request) => {
      if (request.response) {
        request.response.headers = { ...corsHeaders(side), ...request.response.headers };
      }
    },
  };
}

/** Client bodies are tiny; management bulk bodies carry up to 1000 keys. */
export const bodyLimits: Record<Side, number> = { client: 64 * 1024, management: 256 * 1024 };

export function jsonBody(side: Side): Middleware {
  return {
    before: (request: Request) => {
      const { event } = request;
      const raw = event.isBase64Encoded && event.body ? Buffer.from(event.body, 'base64').toString('utf8') : (event.body ?? '');
      if (Buffer.byteLength(raw, 'utf8') > bodyLimits[side]) throw edgeErrors.bodyTooLarge(side);
      try {
        event.parsedBody = JSON.parse(raw);
      } catch {
        throw edgeErrors.invalidJson(side);
      }
    },
  };
}

/**
 * The one place errors become responses. Expected errors render their own body;
 * anything else is a server fault: logged with its cause, answered 500 without a
 * stack unless debug mode is on.
 */
export function errorRenderer(side: Side, deps: () => { config: Config; logger: Logger }): Middleware {
  return {
    onError: (request: Request) => {
      const { error, event } = request;
      if (error instanceof ServiceError) {
        request.response = jsonResponse(error.status, error.body(), side, error.headers());
        return;
      }
      const { config, logger } = deps();
      logger.error('request failed', { path: event.resource, request_id: event.requestContext?.requestId, ...describeError(error) });
      const fault = edgeErrors.serverError(side);
      const body: Record<string, unknown> = fault.body();
      if (config.debug) {
        body.debug_error = error instanceof Error ? error.message : String(error);
        if (event.resource === '/register') body.debug_type = error instanceof Error ? error.name : typeof error;
      }
      request.response = jsonResponse(fault.status, body, side);
    },
  };
}

