import * as z from 'zod/mini';
import type { Deps } from '#core/deps';
import { decodeCursor, encodeCursor, notACursor } from '#core/cursor';
import type { Page } from '#core/http';
import { ownedApp } from '#core/ownership';
import type { AuditEvent } from '#data/events.repo';
import type { auditListSchema } from './schemas';

const cursorSchema = z.tuple([z.string(), z.string().check(z.maxLength(300))]);

/** A position in one app's audit log, as the audit index sorts it. */
function decodeAuditCursor(cursor: string, appId: string): string {
  const [, position] = decodeCursor(cursor, appId, cursorSchema);
  if (!/^\d{4}-\d\d-\d\dT[\d:.]+Z#\d{40}#[A-Za-z0-9_.:-]+$/.test(position)) throw notACursor();
  return position;
}

/** `/audit/get-bulk`: the app's events, newest first, of one license and/or one type. */
export async function listAudit(deps: Deps, input: z.infer<typeof auditListSchema> & { teamId: string }): Promise<Page<AuditEvent>> {
  const after = input.cursor ? decodeAuditCursor(input.cursor, input.app_id) : undefined;
  await ownedApp(deps, input.teamId, input.app_id);
  const page = await deps.repos.events.listAudit(input.app_id, { licenseKey: input.license_key, type: input.type, limit: input.per_page, after });
  return { items: page.events, nextCursor: page.next === undefined ? null : encodeCursor(input.app_id, [page.next]) };
}
