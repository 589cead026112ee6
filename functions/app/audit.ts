import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import type { Deps } from '#core/deps';
import { decodeCursor, encodeCursor, notACursor } from '#core/http/cursor';
import { invalidInput } from '#core/http/errors';
import type { OwnerInput, Page } from '#core/http/handler';
import { ownedApp } from '#core/domain/ownership';
import type { AuditEvent } from '#data/model/audit';
import type { auditListSchema } from './schemas';
import * as events from '#data/events.repo';

type AuditListInput = z.infer<typeof auditListSchema>;

const cursorSchema = z.lazy(() => z.tuple([z.string(), z.string().check(z.maxLength(300)), z.string()]));

/**
 * The filters a cursor pages through, as a digest: the cursor stays opaque, and
 * a position in one license's or type's events means nothing in another listing.
 */
function filtersDigest(input: AuditListInput): string {
  const narrowing = [input.actor, input.from, input.to];
  // Without actor and time the digest is the one cursors had before those filters existed: such cursors stay valid.
  const filters = [input.license_key ?? null, input.type ?? null, ...(narrowing.some((value) => value !== undefined) ? narrowing.map((value) => value ?? null) : [])];
  return createHash('sha256').update(JSON.stringify(filters)).digest('base64url').slice(0, 16);
}

/** A position in one app's audit log, as the audit index sorts it, for the filters it was issued for. */
function decodeAuditCursor(cursor: string, input: AuditListInput): string {
  const [, position, filters] = decodeCursor(cursor, input.app_id, cursorSchema);
  if (!/^\d{4}-\d\d-\d\dT[\d:.]+Z#\d{40}#[A-Za-z0-9_.:-]+$/.test(position)) throw notACursor();
  if (filters !== filtersDigest(input)) throw invalidInput('cursor: was issued for other filters; send it with the filters (license_key, type, actor, from, to) of the request that returned it');
  return position;
}

/** `/audit/get-bulk`: the app's events, newest first, narrowed by license, type, actor and time. */
export async function listAudit(deps: Deps, input: OwnerInput<typeof auditListSchema>): Promise<Page<AuditEvent>> {
  const after = input.cursor ? decodeAuditCursor(input.cursor, input) : undefined;
  await ownedApp(deps, input.teamId, input.app_id);
  const page = await events.listAudit(deps.table, input.app_id, {
    licenseKey: input.license_key,
    type: input.type,
    actor: input.actor,
    from: input.from,
    to: input.to,
    limit: input.per_page,
    after,
  });
  return { items: page.events, nextCursor: page.next === undefined ? null : encodeCursor(input.app_id, [page.next, filtersDigest(input)]) };
}
