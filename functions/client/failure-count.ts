import type { Deps } from '#core/deps';
import { ClientError } from '#core/errors';
import type { PendingFailures } from '#core/auth-failures';

/** A failed /auth that is some application's: every 403 but the unknown app id's. */
export function countsAsAuthFailure(error: unknown): boolean {
  return error instanceof ClientError && error.status === 403 && error.message !== 'INVALID_APP_ID';
}

/**
 * Adds counts to the daily counters (one ADD per app and day). A write that
 * fails puts its counts back for the next flush, so a passing DynamoDB error
 * loses nothing.
 */
export async function flushAuthFailures(deps: Pick<Deps, 'repos' | 'authFailures' | 'logger'>, entries: PendingFailures[]): Promise<void> {
  for (const entry of entries) {
    try {
      await deps.repos.events.addAuthFailures(entry.appId, entry.day, entry.count);
    } catch (error) {
      deps.authFailures.restore([entry]);
      deps.logger.warn('failed /auth counts not flushed', { app_id: entry.appId, error_message: error instanceof Error ? error.message : String(error) });
    }
  }
}
