import type { Side } from '../../routes';

/**
 * Every error a request can end with. Each knows its HTTP status and renders the
 * body shape of its side; the error middleware is the only place that renders.
 */
export abstract class ServiceError extends Error {
  abstract readonly status: number;
  abstract body(): Record<string, unknown>;
  headers(): Record<string, string> {
    return {};
  }
}

/** `/auth` and `/register`: `{success: false, message, data?}`; `message` is what clients match on. */
export class ClientError extends ServiceError {
  constructor(
    readonly status: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    return this.data === undefined
      ? { success: false, message: this.message }
      : { success: false, message: this.message, data: this.data };
  }
}

/**
 * The one catalogue of management errors: each code's HTTP status and its usual
 * message. Throw sites name a code (and a message where the case says more); the
 * OpenAPI document (functions/openapi/document.ts) takes each code's status from
 * here, so a status is stated once. Codes and messages are documented in
 * docs/management-api.md.
 */
export const managementErrors = {
  INVALID_INPUT: { status: 400, message: 'Invalid input' },
  MISSING_AUTH: { status: 401, message: 'Missing API key' },
  INVALID_API_KEY: { status: 401, message: 'Invalid or inactive API key' },
  INVALID_CODE: { status: 401, message: 'The code is wrong or has expired; ask for a new one' },
  INVALID_SESSION: { status: 401, message: 'Not signed in, or the session has ended; sign in again' },
  ACCESS_DENIED: { status: 403, message: 'Access denied' },
  NOT_ALLOWED: { status: 403, message: 'The owner does not let customers do this here' },
  PORTAL_DISABLED: { status: 403, message: 'The customer portal is not on for this application' },
  APP_NOT_FOUND: { status: 404, message: 'Application not found' },
  LICENSE_NOT_FOUND: { status: 404, message: 'License not found' },
  SUBSCRIPTION_NOT_FOUND: { status: 404, message: 'Subscription not found' },
  HWID_NOT_FOUND: { status: 404, message: 'This HWID is not bound to the license' },
  BLACKLIST_ENTRY_NOT_FOUND: { status: 404, message: 'Blacklist entry not found' },
  WEBHOOK_NOT_FOUND: { status: 404, message: 'Webhook not found' },
  DELIVERY_NOT_FOUND: { status: 404, message: 'Delivery not found' },
  NO_BILLING: { status: 404, message: 'This license was not bought through Stripe: there is no billing to manage here' },
  NOT_FOUND: { status: 404, message: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed' },
  CONFLICT: { status: 409, message: 'The license was changed by another request at the same time; try again' },
  HWID_IN_USE: { status: 409, message: 'This HWID is bound to another license of the application' },
  LICENSE_KEY_TAKEN: { status: 409, message: 'License key is already taken' },
  USERNAME_TAKEN: { status: 409, message: 'Username is already used in this application' },
  WEBHOOK_LIMIT_REACHED: { status: 409, message: 'The application has 10 webhooks already' },
  WEBHOOK_DISABLED: { status: 409, message: 'The webhook is disabled; enable it before redelivering' },
  NO_EMAIL_SENDER: { status: 409, message: 'This deployment sends no email (the stack setting sesIdentity is not set), so the customer portal cannot be switched on' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body too large' },
  RATE_LIMITED: { status: 429, message: 'Too many requests' },
  HEADERS_TOO_LARGE: { status: 431, message: 'Request headers too large' },
  SERVER_ERROR: { status: 500, message: 'Internal server error' },
  BILLING_UNAVAILABLE: { status: 502, message: 'Stripe did not open the billing page; try again later, or ask the seller' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'The store did not answer in time and nothing was changed; send the request again' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ManagementErrorCode = keyof typeof managementErrors;

/** Management routes: `{error, error_code}`, with the status the catalogue gives the code. */
export class ManagementError extends ServiceError {
  readonly status: number;

  constructor(
    readonly code: ManagementErrorCode,
    message: string = managementErrors[code].message,
    private readonly extraHeaders: Record<string, string> = {},
  ) {
    super(message);
    this.status = managementErrors[code].status;
  }

  body(): Record<string, unknown> {
    return { error: this.message, error_code: this.code };
  }

  override headers(): Record<string, string> {
    return this.extraHeaders;
  }
}

export const clientMessages = {
  invalidJson: 'Invalid JSON in request body',
  appIdRequired: 'App ID is required',
  appIdFormat: 'Invalid App ID format (must be a valid UUID)',
  noAuthMethod: 'No valid authentication method provided (missing license key or username/password)',
  licenseRequired: 'License key is required',
  usernameRequired: 'Username is required',
  passwordRequired: 'Password is required',
  usernameLength: 'Username must be 3 to 50 characters',
  passwordMinLength: 'Password must be at least 8 characters',
  passwordMaxBytes: 'Password must be at most 72 bytes',
  bodyTooLarge: 'Request body too large',
  malformedTarget: 'Malformed request target',
  serverError: 'Internal server error',
  hwidFormat: 'HWID must be a string of at most 256 characters',
  hwidProto: 'HWID must not be "__proto__"',
  invalidNonce: 'Invalid nonce',
  invalidBorrowSeconds: 'Invalid borrow_seconds',
  invalidContentDigest: 'Invalid Content-Digest',
  invalidUsage: 'Invalid usage request',
  invalidLicenseFileRequest: 'Invalid license file request',
  invalidActivationRequest: 'Invalid activation request',
  invalidReturnCode: 'Invalid return code',
  invalidHwid: 'Invalid hwid',
} as const;

/** The 403 codes of docs/client-api.md: /auth's, /register's (USERNAME_TAKEN among them), /reset-hwid's, /release's, /usage's and /trial's. */
export type ClientFailureCode =
  | 'LICENSE_NOT_FOUND'
  | 'INVALID_USERNAME_OR_PASSWORD'
  | 'LICENSE_NOT_ACTIVE'
  | 'LICENSE_EXPIRED'
  | 'HWID_NOT_PROVIDED'
  | 'HWID_MISMATCH'
  | 'DEVICE_ALREADY_REGISTERED_WITH_OTHER_LICENSE'
  | 'INVALID_APP_ID'
  | 'APPLICATION_NOT_FOUND'
  | 'APPLICATION_NOT_ACTIVE'
  | 'TEAM_ERROR'
  | 'SUBSCRIPTION_ERROR'
  | 'SUBSCRIPTION_NOT_ACTIVE'
  | 'COUNTRY_BLACKLISTED'
  | 'ASN_BLACKLISTED'
  | 'IP_BLACKLISTED'
  | 'HWID_BLACKLISTED'
  | 'USERNAME_TAKEN'
  | 'HWID_RESET_NOT_ALLOWED'
  | 'HWID_NOT_BOUND'
  | 'HWID_RESET_COOLDOWN'
  | 'SEATS_EXHAUSTED'
  | 'LICENSE_NOT_FLOATING'
  | 'LEASE_BORROWED'
  | 'LICENSE_NOT_ACTIVATED'
  | 'USAGE_COUNTER_UNKNOWN'
  | 'USAGE_LIMIT_REACHED'
  | 'TRIALS_DISABLED'
  | 'TRIAL_EXPIRED'
  | 'TRIAL_CONVERTED'
  | 'TRIAL_LIMIT_REACHED';

/**
 * A client route's 403 met on a portal route (a release runs /reset-hwid's rules): the
 * management shape with the client's code, and the client's data (a cooldown's `next_reset_at`).
 */
export class CustomerFailure extends ServiceError {
  readonly status = 403;

  constructor(readonly failure: ClientError) {
    super(failure.message);
  }

  body(): Record<string, unknown> {
    const base = { error: `Refused: ${this.failure.message}`, error_code: this.failure.message };
    return this.failure.data === undefined ? base : { ...base, data: this.failure.data };
  }
}

export function clientFailure(code: ClientFailureCode, data?: Record<string, unknown>): ClientError {
  return new ClientError(403, code, data);
}

export function badClientRequest(message: string): ClientError {
  return new ClientError(400, message);
}

export function invalidInput(message: string): ManagementError {
  return new ManagementError('INVALID_INPUT', message);
}

/** Errors raised before a route's own code runs, rendered in the shape of the route's side. */
export const edgeErrors = {
  invalidJson: (side: Side): ServiceError =>
    side === 'client'
      ? badClientRequest(clientMessages.invalidJson)
      : invalidInput('Request body is not valid JSON'),
  bodyTooLarge: (side: Side): ServiceError =>
    side === 'client'
      ? new ClientError(413, clientMessages.bodyTooLarge)
      : new ManagementError('PAYLOAD_TOO_LARGE'),
  malformedTarget: (side: Side): ServiceError =>
    side === 'client'
      ? badClientRequest(clientMessages.malformedTarget)
      : invalidInput(`${clientMessages.malformedTarget}: a path and query of URI characters only, escapes as % and two hex digits`),
  /** Answered before the request is parsed, so without a route to take the side from: the management shape. */
  headersTooLarge: (): ServiceError => new ManagementError('HEADERS_TOO_LARGE'),
  malformedRequest: (): ServiceError => invalidInput('Malformed HTTP request'),
  methodNotAllowed: (side: Side): ServiceError =>
    side === 'client'
      ? new ClientError(405, 'Method not allowed')
      : new ManagementError('METHOD_NOT_ALLOWED'),
  serverError: (side: Side): ServiceError =>
    side === 'client'
      ? new ClientError(500, clientMessages.serverError)
      : new ManagementError('SERVER_ERROR'),
};

/** A 429 with the seconds after which a request is let through again. */
export const rateLimited = (retryAfterSeconds: number) =>
  new ManagementError('RATE_LIMITED', undefined, { 'Retry-After': String(retryAfterSeconds) });

/** A license kept changing under a read-then-conditional-write: sending the request again is safe. */
export const concurrentChange = () => new ManagementError('CONFLICT');
