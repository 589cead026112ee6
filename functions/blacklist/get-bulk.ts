import * as z from 'zod/mini';
import type { Deps } from '#core/deps';
import { decodeCursor, encodeCursor, notACursor } from '#core/http/cursor';
import type { Page } from '#core/http/handler';
import { ownedApp } from '#core/domain/ownership';
import type { OwnerInput } from '#core/http/handler';
import * as blacklist from '#data/blacklist.repo';
import { blacklistTypes, type BlacklistEntry } from '#data/model/blacklist';
import type { listBlacklistSchema } from './schemas';

/** A cursor is the last entry shown (its type and value), for this app. */
const cursorSchema = z.lazy(() => z.tuple([z.string(), z.enum(blacklistTypes), z.string()]));

/**
 * Entries of an app, ordered by type then value. One extra entry is read so that
 * the last page never carries a cursor to an empty page. A cursor leads back
 * into the same app's entries of the same type filter, never elsewhere.
 */
export async function listBlacklist(deps: Deps, input: OwnerInput<typeof listBlacklistSchema>): Promise<Page<BlacklistEntry>> {
  const after = input.cursor === undefined ? undefined : afterOf(input.cursor, input);
  await ownedApp(deps, input.teamId, input.app_id);
  const entries = await blacklist.list(deps.table, input.app_id, input.type, input.per_page + 1, after);
  const page = entries.slice(0, input.per_page);
  const last = page.at(-1);
  const nextCursor = entries.length > input.per_page && last ? encodeCursor(input.app_id, [last.type, last.value]) : null;
  return { items: page, nextCursor };
}

function afterOf(cursor: string, input: Pick<OwnerInput<typeof listBlacklistSchema>, 'app_id' | 'type'>): Pick<BlacklistEntry, 'type' | 'value'> {
  const [, type, value] = decodeCursor(cursor, input.app_id, cursorSchema);
  if (input.type !== undefined && type !== input.type) throw notACursor();
  return { type, value };
}
