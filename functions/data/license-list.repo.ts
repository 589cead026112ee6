import { batchGetItems, itemId } from './batch-get';
import { boundedList, maxItemsReadPerList, pages, type PageInput, type Table } from './db';
import { keys, type ItemKey } from './keys';
import { parseLicense, type ExpiryPosition, type License, type ListFilter, type ListOrder, type ListPosition, type PositionIn } from './model/license';
import type { IndexName } from './table';

/**
 * The listing of an app's licenses (/license/get-bulk): by creation time in
 * the listing index, or by expiry in the lookup entries the events consumer
 * keeps (lookup.repo.ts), a page at a time under a read bound.
 */

/** Items one filtered query may read: DynamoDB stops at 1 MB anyway, which is about this many licenses. */
const maxReadLimit = 1000;

/**
 * Items a listing filtered on what the index does not copy (expiry, first
 * use) may read per request: each is a license read in full (half a read unit
 * each), so 500 of them cost at most 250 read units before the page answers
 * with what it found and a cursor.
 */
export const maxItemsMatchedPerList = 500;

interface ListOptions {
  after?: ListPosition | ExpiryPosition;
  filter: ListFilter;
  match?: (license: License) => boolean;
}

/** What a listing queries, where it starts, how it reads its licenses and positions, and what it tests on them. */
interface ListSource {
  query: Omit<PageInput, 'Limit' | 'ScanIndexForward'>;
  startKey?: Record<string, unknown>;
  /** Whether the query skips entries (a filter expression or `match`): then each read widens. */
  filtering: boolean;
  licenseOf?: (entry: Record<string, unknown>) => ItemKey;
  match?: (license: License, entry: Record<string, unknown>) => boolean;
  positionOf: (entry: Record<string, unknown>) => ListPosition | ExpiryPosition;
}

/** Creation order: the listing index (`gsi2`) copies status, subscription and tags, so those filter in the query. */
function byCreation(appId: string, teamId: string, options: ListOptions): ListSource {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':pk': keys.licensesOfApp(appId) };
  const filters: string[] = [];
  if (options.filter.status !== undefined) {
    names['#status'] = 'status';
    values[':status'] = options.filter.status;
    filters.push('#status = :status');
  }
  if (options.filter.subscription_id !== undefined) {
    values[':subscription'] = options.filter.subscription_id;
    filters.push('subscription_id = :subscription');
  }
  if (options.filter.tag !== undefined) {
    values[':tag'] = options.filter.tag;
    filters.push('contains(tags, :tag)');
  }
  const after = options.after as ListPosition | undefined;
  const { match } = options;
  return {
    query: {
      IndexName: licenseIndex,
      KeyConditionExpression: 'gsi2pk = :pk',
      ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
      ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: values,
    },
    startKey: after && { ...keys.licenseOf({ ...after, team_id: teamId }), ...keys.licenseByApp(appId, after.created_at, after.key) },
    filtering: filters.length > 0 || match !== undefined,
    ...(match ? { match: (license: License) => match(license) } : {}),
    positionOf: (entry) => {
      const { createdAt, licenseKey, keyScope } = keys.licensePosition(entry);
      return { created_at: createdAt, key: licenseKey, ...(keyScope ? { key_scope: keyScope } : {}) };
    },
  };
}

/**
 * Expiry order: its entries carry keys only, so every filter is tested on the
 * license read, and an entry its license has moved on from (the consumer has
 * not yet caught up with an extension) is skipped.
 */
function byExpiry(appId: string, teamId: string, options: ListOptions): ListSource {
  const after = options.after as ExpiryPosition | undefined;
  const licenseItemOf = (entry: Record<string, unknown>): ItemKey => {
    const { licenseKey, keyScope } = keys.expiryPosition(entry);
    return keys.licenseOf({ key: licenseKey, team_id: teamId, ...(keyScope ? { key_scope: keyScope } : {}) });
  };
  const { filter, match } = options;
  return {
    query: { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.expiryOrderOf(appId) } },
    startKey: after && { ...keys.licenseByExpiry(appId, after.expires_at, keys.licenseOf({ ...after, team_id: teamId }).pk) },
    filtering: true,
    licenseOf: licenseItemOf,
    match: (license, entry) =>
      license.expires_at === keys.expiryPosition(entry).expiresAt &&
      license.app_id === appId &&
      (filter.status === undefined || license.status === filter.status) &&
      (filter.subscription_id === undefined || license.subscription_id === filter.subscription_id) &&
      (filter.tag === undefined || license.tags.includes(filter.tag)) &&
      (match === undefined || match(license)),
    positionOf: (entry) => {
      const { expiresAt, licenseKey, keyScope } = keys.expiryPosition(entry);
      return { expires_at: expiresAt, key: licenseKey, ...(keyScope ? { key_scope: keyScope } : {}) };
    },
  };
}

/** The index that lists an app's licenses; its entries carry the keys and the filtered fields only (data/table.ts). */
const licenseIndex: IndexName = 'gsi2';

/**
 * Licenses of an app by creation time (`gsi2`) or by expiry (the app's
 * expiry order, which holds licenses that have an expiry only), filtered,
 * starting after a given position. Queries on until `limit` matches, the
 * end, or the read bound, since a filtered query page may hold few or
 * none. `next` is where the following page starts: after the last license
 * returned when another match was seen, after the last item read when the
 * read bound cut the page short, absent at the end.
 */
export async function listByApp<O extends ListOrder = 'created_at'>(
  table: Table,
  appId: string,
  teamId: string,
  options: {
    limit: number;
    ascending: boolean;
    order?: O;
    after?: PositionIn<O>;
    filter: ListFilter;
    /** A condition on what the index does not copy (expiry, first use): tested on each license read. */
    match?: (license: License) => boolean;
  },
): Promise<{ licenses: License[]; next?: PositionIn<O> }> {
  const source = options.order === 'expires_at' ? byExpiry(appId, teamId, options) : byCreation(appId, teamId, options);
  const { match } = source;
  const { found, next } = await boundedList(table, {
    query: { ...source.query, ScanIndexForward: options.ascending },
    startKey: source.startKey,
    limit: options.limit,
    readBound: match ? maxItemsMatchedPerList : maxItemsReadPerList,
    // Items read past the last one returned are read again by the next page, so
    // read little at first; a filter that matches rarely widens each read.
    pageSize: (wanted, page) => (source.filtering ? Math.min(maxReadLimit, (options.limit + 1) * 2 ** page) : wanted),
    keep: async (entries): Promise<{ entry: Record<string, unknown>; license?: License }[]> =>
      match
        ? (await readEntries(table, entries, source.licenseOf)).filter(({ entry, license }) => license !== undefined && match(license, entry))
        : entries.map((entry) => ({ entry })),
  });
  const licenses = match ? found.map(({ license }) => license!) : await licensesOf(table, found.map(({ entry }) => entry));
  const positionOf = source.positionOf as (entry: Record<string, unknown>) => PositionIn<O>;
  if (!next) return { licenses };
  return { licenses, next: positionOf('after' in next ? next.after.entry : next.key) };
}

/** Every license of an app, a page at a time, in creation order (the admin CLI's recount; never a request path). */
export async function* pagesOfApp(table: Table, appId: string): AsyncGenerator<License[]> {
  const entries = pages(table, { IndexName: licenseIndex, KeyConditionExpression: 'gsi2pk = :pk', ExpressionAttributeValues: { ':pk': keys.licensesOfApp(appId) }, Limit: 100 });
  for await (const page of entries) yield await licensesOf(table, page);
}

/** Listing entries with their licenses, in their order; `license` is absent for one deleted since the entry was read. */
async function readEntries(
  table: Table,
  entries: Record<string, unknown>[],
  licenseOf: (entry: Record<string, unknown>) => ItemKey = (entry) => ({ pk: String(entry.pk), sk: String(entry.sk) }),
): Promise<{ entry: Record<string, unknown>; license?: License }[]> {
  if (entries.length === 0) return [];
  const items = await batchGetItems(table, entries.map(licenseOf));
  return entries.map((entry) => {
    const item = items.get(itemId(licenseOf(entry)));
    return item ? { entry, license: parseLicense(item) } : { entry };
  });
}

/** The licenses of these listing entries, in their order; one deleted since the entry was read is left out. */
async function licensesOf(table: Table, entries: Record<string, unknown>[]): Promise<License[]> {
  return (await readEntries(table, entries)).flatMap(({ license }) => (license ? [license] : []));
}
