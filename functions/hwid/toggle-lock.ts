import type { Deps } from '#core/deps';
import { setOrFlipFlag } from './license-flag';
import type { ToggleLockInput } from './schemas';

export function toggleLock(deps: Deps, input: ToggleLockInput & { teamId: string }) {
  return setOrFlipFlag(deps, input.teamId, input.license_key, 'hwid_lock', input.hwid_lock);
}
