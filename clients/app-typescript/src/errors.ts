/** Codes the client itself gives a failure, beside the service's own messages. */
export type ClientCode = 'INVALID_SIGNATURE' | 'NETWORK_ERROR' | 'OFFLINE_TOKEN_EXPIRED' | 'LICENSE_FILE_EXPIRED' | 'LICENSE_FILE_MISMATCH' | 'CLOCK_MOVED_BACK';

/**
 * The `message` codes the client routes answer a refusal with (docs/client-api.md);
 * a 400 answers a sentence instead (`Invalid nonce`, …), which is the code too.
 */
export type ServiceCode =
  | 'INVALID_APP_ID'
  | 'COUNTRY_BLACKLISTED'
  | 'ASN_BLACKLISTED'
  | 'IP_BLACKLISTED'
  | 'HWID_BLACKLISTED'
  | 'LICENSE_NOT_FOUND'
  | 'INVALID_USERNAME_OR_PASSWORD'
  | 'LICENSE_NOT_ACTIVE'
  | 'LICENSE_EXPIRED'
  | 'APPLICATION_NOT_FOUND'
  | 'APPLICATION_NOT_ACTIVE'
  | 'TEAM_ERROR'
  | 'SUBSCRIPTION_ERROR'
  | 'SUBSCRIPTION_NOT_ACTIVE'
  | 'HWID_NOT_PROVIDED'
  | 'HWID_MISMATCH'
  | 'DEVICE_ALREADY_REGISTERED_WITH_OTHER_LICENSE'
  | 'SEATS_EXHAUSTED'
  | 'LICENSE_NOT_FLOATING'
  | 'HWID_NOT_BOUND'
  | 'LEASE_BORROWED'
  | 'HWID_RESET_NOT_ALLOWED'
  | 'HWID_RESET_COOLDOWN'
  | 'USERNAME_TAKEN'
  | 'LICENSE_NOT_ACTIVATED'
  | 'USAGE_COUNTER_UNKNOWN'
  | 'USAGE_LIMIT_REACHED'
  | 'TRIAL_EXPIRED'
  | 'TRIAL_CONVERTED'
  | 'TRIAL_LIMIT_REACHED'
  | 'TRIALS_DISABLED';

/** `(string & {})` keeps editors completing the known codes while any message the service may add still types. */
export type LicenseErrorCode = ClientCode | ServiceCode | (string & {});

/**
 * Every failure of a licensing call: a refusal by the service (`code` is its
 * `message`, `data` what it sent with it), an answer or file that does not
 * verify (`INVALID_SIGNATURE`), no answer within the timeout (`NETWORK_ERROR`),
 * a stored offline token or license file past its `exp`
 * (`OFFLINE_TOKEN_EXPIRED`, `LICENSE_FILE_EXPIRED`), a license file for
 * another application, license, device or request, or not valid yet
 * (`LICENSE_FILE_MISMATCH`), or a computer clock set back
 * (`CLOCK_MOVED_BACK`).
 */
export class LicenseError extends Error {
  override readonly name = 'LicenseError';
  readonly code: LicenseErrorCode;
  /** What the service sent with the refusal, e.g. `{max_devices, next_seat_at}` with `SEATS_EXHAUSTED`. */
  readonly data: unknown;
  /** The HTTP status of the answer, when there was one. */
  readonly status: number | undefined;

  constructor(code: LicenseErrorCode, detail?: string, extra: { data?: unknown; status?: number; cause?: unknown } = {}) {
    super(detail === undefined ? code : `${code}: ${detail}`, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.code = code;
    this.data = extra.data;
    this.status = extra.status;
  }
}

export const invalidSignature = (detail: string, cause?: unknown) => new LicenseError('INVALID_SIGNATURE', detail, { cause });
