import * as z from 'zod/mini';
import type { Deps } from '#core/deps';
import { invalidInput } from '#core/errors';
import type { Page } from '#core/http';
import { ownedApp } from '#core/ownership';
import type { AuditEvent } from '#data/events.repo';
import type { auditListSchema } from './schemas';

const cursorSchema = z.tuple([z.string(), z.string().check(z.maxLength(300))]);

/** Like the license listing's: a position in one app's audit log, bound to that app. */
function encodeCursor(appId: string, position: string): string {
  return Buffer.from(JSON.stringify([appId, position]), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string, appId: string): string {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  const parsed = cursorSchema.safeParse(decoded);
  if (!parsed.success || parsed.data[0] !== appId || !/^\d{4}-\d\d-\d\dT[\d:.]+Z#\d{40}#[A-Za-z0-9_.:-]+$/.test(parsed.data[1])) {
    throw invalidInput('cursor: is not a cursor this API returned for this app');
  }
  return parsed.data[1];
}

/** `/audit/get-bulk`: the app's events, newest first, of one license and/or one type. */
export async function listAudit(deps: Deps, input: z.infer<typeof auditListSchema> & { teamId: string }): Promise<Page<AuditEvent>> {
  const after = input.cursor ? decodeCursor(input.cursor, input.app_id) : undefined;
  await ownedApp(deps, input.teamId, input.app_id);
  const page = await deps.repos.events.listAudit(input.app_id, { licenseKey: input.license_key, type: input.type, limit: input.per_page, after });
  return { items: page.events, nextCursor: page.next === undefined ? null : encodeCursor(input.app_id, page.next) };
}
