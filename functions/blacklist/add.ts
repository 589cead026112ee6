import { iso } from '#shared/clock';
import type { Deps } from '#core/deps';
import { ownedApp } from '#core/domain/ownership';
import type { OwnerInput } from '#core/http/handler';
import { normalizedValue } from './entry-value';
import type { addBlacklistSchema } from './schemas';
import * as blacklist from '#data/blacklist.repo';

/** Adding an entry that exists replaces its reason and keeps its `created_at`. */
export async function addBlacklistEntry(deps: Deps, input: OwnerInput<typeof addBlacklistSchema>) {
  await ownedApp(deps, input.teamId, input.app_id);
  return blacklist.add(deps.table, {
    app_id: input.app_id,
    type: input.type,
    value: normalizedValue(input.type, input.value),
    reason: input.reason ?? null,
    created_at: iso(deps.clock.now()),
  });
}
