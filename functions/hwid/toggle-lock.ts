import type { Deps } from '#core/deps';
import type { OwnerInput } from '#core/http/handler';
import { setOrFlipFlag } from './license-flag';
import type { toggleLockSchema } from './schemas';

export function toggleLock(deps: Deps, input: OwnerInput<typeof toggleLockSchema>) {
  return setOrFlipFlag(deps, input.teamId, input.license_key, 'hwid_lock', input.hwid_lock);
}
