import { ClientError } from '#core/http/errors';

/** A failed /auth that is some application's: every 403 but the unknown app id's. */
export function countsAsAuthFailure(error: unknown): boolean {
  return error instanceof ClientError && error.status === 403 && error.message !== 'INVALID_APP_ID';
}
