import type { BlacklistType } from '#data/model/blacklist';
import type { TestEnv } from './env';
import * as blacklistRepo from '#data/blacklist.repo';

/** Adds a blacklist entry through the repository; `value` is given already normalised. */
export async function blacklist(env: TestEnv, appId: string, type: BlacklistType, value: string): Promise<void> {
  await blacklistRepo.put(env.deps.table, { app_id: appId, type, value, reason: null, created_at: new Date().toISOString() });
}
