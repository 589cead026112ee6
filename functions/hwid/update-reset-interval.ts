import type { Deps } from '#core/deps';
import { updateOwned } from './license-flag';
import { licenseRecord } from '#core/domain/license-view';
import type { UpdateResetIntervalInput } from './schemas';

/** The cooldown /auth reports is computed from this interval and `last_hwid_reset_at`, so it takes effect at once. */
export async function updateResetInterval(deps: Deps, input: UpdateResetIntervalInput & { teamId: string }) {
  const license = await updateOwned(deps, input.teamId, input.license_key, { hwid_reset_interval: input.hwid_reset_interval });
  return licenseRecord(deps, license);
}
