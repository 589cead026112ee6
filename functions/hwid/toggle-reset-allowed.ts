import type { Deps } from '#core/deps';
import { setOrFlipFlag } from './license-flag';
import type { ToggleResetAllowedInput } from './schemas';

export function toggleResetAllowed(deps: Deps, input: ToggleResetAllowedInput & { teamId: string }) {
  return setOrFlipFlag(deps, input.teamId, input.license_key, 'hwid_reset_allowed', input.hwid_reset_allowed);
}
