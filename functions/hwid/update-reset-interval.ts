import type { Deps } from '#core/deps';
import { updateOwned } from './license-flag';
import { licenseRecord } from '#core/domain/license-view';
import type { OwnerInput } from '#core/http/handler';
import type { updateResetIntervalSchema } from './schemas';

/** The cooldown /auth reports is computed from this interval and `last_hwid_reset_at`, so it takes effect at once. */
export async function updateResetInterval(deps: Deps, input: OwnerInput<typeof updateResetIntervalSchema>) {
  const license = await updateOwned(deps, input.teamId, input.license_key, { hwid_reset_interval: input.hwid_reset_interval });
  return licenseRecord(deps, license);
}
