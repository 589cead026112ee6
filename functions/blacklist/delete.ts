import type { Deps } from '#core/deps';
import { ManagementError } from '#core/http/errors';
import { ownedApp } from '#core/domain/ownership';
import type { OwnerInput } from '#core/http/handler';
import { normalizedValue } from './entry-value';
import type { deleteBlacklistSchema } from './schemas';
import * as blacklist from '#data/blacklist.repo';

export async function deleteBlacklistEntry(deps: Deps, input: OwnerInput<typeof deleteBlacklistSchema>) {
  await ownedApp(deps, input.teamId, input.app_id);
  const value = normalizedValue(input.type, input.value);
  if (!(await blacklist.remove(deps.table, input.app_id, input.type, value))) {
    throw new ManagementError('BLACKLIST_ENTRY_NOT_FOUND');
  }
  return { type: input.type, value, deleted: true };
}
