import * as z from 'zod/mini';
import type { Deps } from '#core/deps';
import { decodeCursor, encodeCursor, notACursor } from '#core/http/cursor';
import type { Page } from '#core/http/handler';
import { managementView, type LicenseRecord } from '#core/domain/license-view';
import { ownedApp } from '#core/domain/ownership';
import type { OwnerInput } from '#core/http/handler';
import type { ExpiryPosition, License, ListPosition } from '#data/model/license';
import type { Subscription } from '#data/model/subscription';
import type { getBulkSchema } from './schemas';
import { subscriptionForApp } from './subscription-of-app';
import * as licenseList from '#data/license-list.repo';
import * as subscriptions from '#data/subscription.repo';

/** App, created_at, key, and 1 when the key lives under the team (a custom key). */
const cursorSchema = z.lazy(() => z.tuple([z.string(), z.iso.datetime(), z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/))], z.literal(1)));

/**
 * The cursor names a position in one app's listing: the last license returned,
 * or the last item read when the read bound cut the page short. It carries the
 * app so that it cannot be replayed against another app's listing.
 */
export function encodeLicenseCursor(appId: string, position: ListPosition): string {
  return encodeCursor(appId, [position.created_at, position.key, ...(position.key_scope === 'team' ? [1] : [])]);
}

export function decodeLicenseCursor(cursor: string, appId: string): ListPosition {
  const [, created_at, key, ...scope] = decodeCursor(cursor, appId, cursorSchema);
  if (scope.length > 1) throw notACursor();
  return { created_at, key, ...(scope.length === 1 ? { key_scope: 'team' as const } : {}) };
}

/** A cursor of the listing by expiry: named as such, so that it cannot resume a listing by creation, nor the reverse. */
const expiryCursorSchema = z.lazy(() => z.tuple([z.string(), z.literal('expires_at'), z.iso.datetime(), z.string().check(z.regex(/^[A-Za-z0-9_-]{1,256}$/))], z.literal(1)));

export function encodeExpiryCursor(appId: string, position: ExpiryPosition): string {
  return encodeCursor(appId, ['expires_at', position.expires_at, position.key, ...(position.key_scope === 'team' ? [1] : [])]);
}

export function decodeExpiryCursor(cursor: string, appId: string): ExpiryPosition {
  const [, , expires_at, key, ...scope] = decodeCursor(cursor, appId, expiryCursorSchema);
  if (scope.length > 1) throw notACursor();
  return { expires_at, key, ...(scope.length === 1 ? { key_scope: 'team' as const } : {}) };
}

/** The subscriptions a page's licenses show, each read once: the filter's own, already read, and one batch for the rest. */
async function subscriptionsOf(deps: Deps, licenses: License[], known: Subscription | undefined): Promise<Map<string, Subscription>> {
  const byId = new Map(known ? [[known.subscription_id, known]] : []);
  const missing = [...new Set(licenses.map((license) => license.subscription_id))].filter((id) => !byId.has(id));
  if (missing.length === 0) return byId;
  for (const [id, subscription] of await subscriptions.getMany(deps.table, missing)) byId.set(id, subscription);
  return byId;
}

/** The expiry and first-use filters as one test of a license read; undefined when none is asked for (docs/management-api.md, "Licenses": the expiry filters). */
export function expiryMatch(
  filter: { expired?: boolean; unused?: boolean; expiring_within_days?: number },
  now: Date,
): ((license: License) => boolean) | undefined {
  const tests: ((license: License) => boolean)[] = [];
  const expiresIn = (license: License) => (license.expires_at === null ? undefined : Date.parse(license.expires_at) - now.getTime());
  if (filter.expired !== undefined) tests.push((license) => ((expiresIn(license) ?? 1) <= 0) === filter.expired);
  if (filter.unused !== undefined) tests.push((license) => (license.first_used_at === null) === filter.unused);
  if (filter.expiring_within_days !== undefined) {
    const within = filter.expiring_within_days * 86400_000;
    tests.push((license) => {
      const left = expiresIn(license);
      return left !== undefined && left > 0 && left <= within;
    });
  }
  return tests.length === 0 ? undefined : (license) => tests.every((test) => test(license));
}

export async function listLicenses(deps: Deps, input: OwnerInput<typeof getBulkSchema>): Promise<Page<LicenseRecord>> {
  const byExpiry = input.sort_field === 'expires_at';
  const after = input.cursor ? (byExpiry ? decodeExpiryCursor : decodeLicenseCursor)(input.cursor, input.app_id) : undefined;
  await ownedApp(deps, input.teamId, input.app_id);
  const filtered = input.subscription_id === undefined ? undefined : await subscriptionForApp(deps, input.teamId, input.app_id, input.subscription_id);

  const options = {
    limit: input.per_page,
    ascending: input.sort_order === 'asc',
    filter: { status: input.status, subscription_id: input.subscription_id, tag: input.tag },
    match: expiryMatch(input, deps.clock.now()),
  };
  const page = byExpiry
    ? await licenseList.listByApp(deps.table, input.app_id, input.teamId, { ...options, order: 'expires_at', after: after as ExpiryPosition | undefined })
    : await licenseList.listByApp(deps.table, input.app_id, input.teamId, { ...options, after: after as ListPosition | undefined });
  const byId = await subscriptionsOf(deps, page.licenses, filtered);
  const next = page.next && ('expires_at' in page.next ? encodeExpiryCursor(input.app_id, page.next) : encodeLicenseCursor(input.app_id, page.next));
  return {
    items: page.licenses.map((license) => managementView(license, byId.get(license.subscription_id), deps.clock.now())),
    nextCursor: next ?? null,
  };
}
