import * as z from 'zod';
import type { Deps } from '#core/deps';
import { invalidInput } from '#core/errors';
import type { Page } from '#core/http';
import { managementView, type LicenseRecord } from '#core/license-view';
import { ownedApp } from '#core/ownership';
import type { License } from '#data/license.repo';
import type { getBulkSchema } from './schemas';
import { subscriptionForApp } from './subscription-of-app';

type Position = Pick<License, 'created_at' | 'key'>;

const positionSchema = z.tuple([z.iso.datetime(), z.string().regex(/^[A-Za-z0-9_-]{1,64}$/)]);

/** The cursor names the last license returned, so the next page starts right after it whatever the filters skipped. */
export function encodeCursor(license: Position): string {
  return Buffer.from(JSON.stringify([license.created_at, license.key]), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): Position {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  const position = positionSchema.safeParse(decoded);
  if (!position.success) throw invalidInput('cursor: is not a cursor this API returned');
  const [created_at, key] = position.data;
  return { created_at, key };
}

export async function listLicenses(deps: Deps, input: z.infer<typeof getBulkSchema> & { teamId: string }): Promise<Page<LicenseRecord>> {
  const after = input.cursor ? decodeCursor(input.cursor) : undefined;
  await ownedApp(deps, input.teamId, input.app_id);
  if (input.subscription_id !== undefined) await subscriptionForApp(deps, input.teamId, input.app_id, input.subscription_id);

  const [page, subscriptions] = await Promise.all([
    deps.repos.licenses.listByApp(input.app_id, {
      limit: input.per_page,
      ascending: input.sort_order === 'asc',
      after,
      filter: { status: input.status, subscription_id: input.subscription_id, tag: input.tag },
    }),
    deps.repos.subscriptions.listByApp(input.app_id),
  ]);
  const byId = new Map(subscriptions.map((subscription) => [subscription.subscription_id, subscription]));
  const last = page.licenses.at(-1);
  return {
    items: page.licenses.map((license) => managementView(license, byId.get(license.subscription_id))),
    nextCursor: page.more && last ? encodeCursor(last) : null,
  };
}
