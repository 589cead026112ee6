import type { Deps } from '#core/deps';
import { ManagementError } from '#core/http/errors';
import { ownedApp } from '#core/domain/ownership';
import { normalizedValue } from './entry-value';
import type { DeleteBlacklistInput } from './schemas';

export async function deleteBlacklistEntry(deps: Deps, input: DeleteBlacklistInput & { teamId: string }) {
  await ownedApp(deps, input.teamId, input.app_id);
  const value = normalizedValue(input.type, input.value);
  if (!(await deps.repos.blacklist.delete(input.app_id, input.type, value))) {
    throw new ManagementError(404, 'BLACKLIST_ENTRY_NOT_FOUND', 'Blacklist entry not found');
  }
  return { type: input.type, value, deleted: true };
}
