import * as z from 'zod/mini';
import type { Deps } from '#core/deps';
import { invalidInput } from '#core/http/errors';
import type { Page } from '#core/http/handler';
import { ownedApp } from '#core/domain/ownership';
import type { OwnerInput } from '#core/http/handler';
import type { BlacklistEntry, BlacklistType } from '#data/model/blacklist';
import { keys, type ItemKey } from '#data/keys';
import type { listBlacklistSchema } from './schemas';
import * as blacklist from '#data/blacklist.repo';

const cursorSchema = z.lazy(() => z.strictObject({ pk: z.string(), sk: z.string() }));

/**
 * Entries of an app, ordered by type then value. One extra entry is read so that
 * the last page never carries a cursor to an empty page.
 */
export async function listBlacklist(deps: Deps, input: OwnerInput<typeof listBlacklistSchema>): Promise<Page<BlacklistEntry>> {
  const startKey = input.cursor === undefined ? undefined : decodeCursor(input.cursor, input.app_id, input.type);
  await ownedApp(deps, input.teamId, input.app_id);
  const { entries } = await blacklist.list(deps.table, input.app_id, input.type, input.per_page + 1, startKey);
  const page = entries.slice(0, input.per_page);
  const last = page.at(-1);
  const nextCursor = entries.length > input.per_page && last ? encodeCursor(keys.blacklist(last.app_id, last.type, last.value)) : null;
  return { items: page, nextCursor };
}

function encodeCursor(key: ItemKey): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** A cursor must lead back into the same app's entries of the same type filter, never into another partition. */
function decodeCursor(cursor: string, appId: string, type: BlacklistType | undefined): Record<string, unknown> {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  const key = cursorSchema.safeParse(decoded);
  if (!key.success || key.data.pk !== keys.app(appId).pk || !key.data.sk.startsWith(keys.blacklistPrefix(type))) throw invalidCursor();
  return key.data;
}

const invalidCursor = () => invalidInput('cursor: not a cursor of this listing');
