import type { Deps } from '#core/deps';
import type { OwnerInput } from '#core/http/handler';
import { setOrFlipFlag } from './license-flag';
import type { toggleResetAllowedSchema } from './schemas';

export function toggleResetAllowed(deps: Deps, input: OwnerInput<typeof toggleResetAllowedSchema>) {
  return setOrFlipFlag(deps, input.teamId, input.license_key, 'hwid_reset_allowed', input.hwid_reset_allowed);
}
