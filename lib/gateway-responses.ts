/**
 * Bodies API Gateway answers by itself, before or instead of a Lambda. They keep
 * the spec's shapes. Gateway response templates are plain substitution (no VTL),
 * so one template serves both sides: where a response can reach a client route
 * (throttling, faults) the body carries the client's `success`/`message` and the
 * management `error`/`error_code` members together.
 */
export interface GatewayResponseSpec {
  type: string;
  /** Absent: API Gateway's own status for the error stays. */
  statusCode?: string;
  /** Absent: API Gateway's default `{"message": ...}` body stays; only CORS headers are added. */
  body?: Record<string, unknown>;
  headers?: Record<string, string>;
}

const invalidApiKey = { error: 'Invalid or inactive API key', error_code: 'INVALID_API_KEY' };
export const rateLimitedBody = { success: false, message: 'RATE_LIMITED', error: 'Too many requests', error_code: 'RATE_LIMITED' };

/** Seconds a throttled caller is told to wait; API Gateway refills its token bucket every second. */
const retryAfterSeconds = '1';

export const gatewayResponses: readonly GatewayResponseSpec[] = [
  // The identity source is the x-api-key header: without it API Gateway answers before the authorizer runs.
  { type: 'UNAUTHORIZED', statusCode: '401', body: { error: 'Missing API key', error_code: 'MISSING_AUTH' } },
  // The authorizer denies unknown and revoked keys.
  { type: 'ACCESS_DENIED', statusCode: '401', body: invalidApiKey },
  // The authorizer accepted the key but its usage identifier is not an API Gateway key of the usage plan.
  { type: 'INVALID_API_KEY', statusCode: '401', body: invalidApiKey },
  { type: 'THROTTLED', statusCode: '429', body: rateLimitedBody, headers: { 'Retry-After': retryAfterSeconds } },
  { type: 'QUOTA_EXCEEDED', statusCode: '429', body: rateLimitedBody, headers: { 'Retry-After': '3600' } },
  // Unknown path, or a method other than POST and OPTIONS.
  {
    type: 'MISSING_AUTHENTICATION_TOKEN',
    statusCode: '404',
    body: { success: false, message: 'Not found', error: 'Not found', error_code: 'NOT_FOUND' },
  },
  // Other 4xx (body over 10 MB, WAF block without its own body) keep API Gateway's message.
  { type: 'DEFAULT_4XX' },
  // Authorizer failures and integration timeouts: the status (500, 504) stays, the body takes the spec's shape.
  {
    type: 'DEFAULT_5XX',
    body: { success: false, message: 'Internal server error', error: 'Internal server error', error_code: 'SERVER_ERROR' },
  },
];

/** Spec 4.3, word for word; management routes also allow the API key header so browsers can send it. */
export function corsHeaders(side: 'client' | 'management'): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Methods': 'POST, OPTIONS',
    'Access-Control-Allow-Headers': side === 'client' ? 'Content-Type, Authorization' : 'Content-Type, Authorization, x-api-key',
    'Access-Control-Max-Age': '86400',
  };
}
