import { invalidApiKey, missingApiKey } from '../functions/core/http/api-key-auth';
import { ClientError, edgeErrors, ManagementError, type ServiceError } from '../functions/core/http/errors';

/**
 * Bodies API Gateway answers by itself, before or instead of a Lambda, rendered
 * by the service's own error classes so they match what the Lambdas and the local
 * server answer. Gateway response templates are plain substitution (no VTL), so
 * one template serves both sides: where a response can reach a client route
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

function eitherSide(client: ServiceError, management: ServiceError): Record<string, unknown> {
  return { ...client.body(), ...management.body() };
}

export const rateLimitedBody = eitherSide(
  new ClientError(429, 'RATE_LIMITED'),
  new ManagementError('RATE_LIMITED'),
);

export const gatewayResponses: readonly GatewayResponseSpec[] = [
  // The identity source is the x-api-key header: without it API Gateway answers before the authorizer runs.
  { type: 'UNAUTHORIZED', statusCode: '401', body: missingApiKey().body() },
  // The authorizer denies unknown and revoked keys.
  { type: 'ACCESS_DENIED', statusCode: '401', body: invalidApiKey().body() },
  // The authorizer accepted the key but its usage identifier is not an API Gateway key of the usage plan.
  { type: 'INVALID_API_KEY', statusCode: '401', body: invalidApiKey().body() },
  // API Gateway refills its token buckets every second; a daily quota resets at midnight UTC, so an hour is a fair first wait.
  { type: 'THROTTLED', statusCode: '429', body: rateLimitedBody, headers: { 'Retry-After': '1' } },
  { type: 'QUOTA_EXCEEDED', statusCode: '429', body: rateLimitedBody, headers: { 'Retry-After': '3600' } },
  // Unknown path, or a method other than POST and OPTIONS: API Gateway cannot tell the two apart.
  {
    type: 'MISSING_AUTHENTICATION_TOKEN',
    statusCode: '404',
    body: eitherSide(new ClientError(404, 'Not found'), new ManagementError('NOT_FOUND')),
  },
  // Other 4xx (body over 10 MB, WAF block without its own body) keep API Gateway's message.
  { type: 'DEFAULT_4XX' },
  // Authorizer failures and integration timeouts: the status (500, 504) stays, the body takes the side's failure shape (docs/client-api.md#answers-cors-and-retries, docs/management-api.md#errors).
  { type: 'DEFAULT_5XX', body: eitherSide(edgeErrors.serverError('client'), edgeErrors.serverError('management')) },
];
