/**
 * The events consumer's writes (audit items, daily counters, the marks of
 * records done) and the reads of /audit/get-bulk and /app/stats. Event shapes
 * are the consumer's; here they are items.
 */
import { batchWrite, boundedList, conditional, getItem, maxItemsReadPerList, maxTransactItems, pages, transactWrite, updateItem, type Table, type TransactItem, type WriteRequest } from './db';
import type { UpdateInput } from './expressions';
import { keys, type ExpiryLevel, type ItemKey } from './keys';
import { auditEventSchema, type AuditEvent, type RecordWork } from './model/audit';
import { dayCountsSchema, expiryCountSchema, totalsSchema, type Addition, type DayCounts, type Standing, type Totals } from './model/stats';

/** The expiry counts' levels: how much of an ISO time names the bucket, and how much names the span /app/stats reads of it. */
const expiryLevels: { level: ExpiryLevel; length: number; within: number }[] = [
  { level: 'D', length: 10, within: 0 },
  { level: 'H', length: 13, within: 11 },
  { level: 'M', length: 16, within: 14 },
  { level: 'T', length: 24, within: 17 },
];

function standingAdditions(standing: Standing, amount: number): Addition[] {
  const totals = keys.statsTotals(standing.appId);
  const expiresAt = standing.expiresAt;
  return [
    { key: totals, counter: 'licenses', amount },
    ...(standing.paused ? [{ key: totals, counter: 'paused', amount }] : []),
    ...(standing.unused ? [{ key: totals, counter: 'unused', amount }] : []),
    ...(expiresAt === undefined
      ? []
      : expiryLevels.map(({ level, length }) => ({ key: keys.expiryCount(standing.appId, keys.expirySortKey(level, expiresAt.slice(0, length))), counter: 'count', amount }))),
  ];
}

/** What a license moving from one standing to another adds to its app's totals and expiry counts: nothing when it stays. */
export function standingChange(before: Standing | undefined, after: Standing | undefined): Addition[] {
  const sums = new Map<string, Addition>();
  for (const addition of [...(before ? standingAdditions(before, -1) : []), ...(after ? standingAdditions(after, 1) : [])]) {
    const id = `${addition.key.pk}\n${addition.key.sk}\n${addition.counter}`;
    const sum = sums.get(id);
    sums.set(id, sum ? { ...sum, amount: sum.amount + addition.amount } : addition);
  }
  return [...sums.values()].filter((addition) => addition.amount !== 0);
}

/** Streams keep records 24 hours: a mark only has to outlive any redelivery. */
const markSeconds = 2 * 86400;

/** ADDs to counters of one counter item; a counter whose amount is 0 is left out. */
function additions(added: Record<string, number>): UpdateInput {
  const entries = Object.entries(added).filter(([, amount]) => amount !== 0);
  return {
    // Counter names go through placeholders: `count` is one of DynamoDB's reserved words.
    UpdateExpression: `ADD ${entries.map(([counter]) => `#${counter} :${counter}`).join(', ')}`,
    ExpressionAttributeNames: Object.fromEntries(entries.map(([counter]) => [`#${counter}`, counter])),
    ExpressionAttributeValues: Object.fromEntries(entries.map(([counter, amount]) => [`:${counter}`, amount])),
  };
}

/** The items of one range of an app's counter partition (`APP#<id>#STATS`), every page read. */
async function* statsItems(table: Table, appId: string, range: { condition: string; values: Record<string, unknown>; projection?: string }) {
  const query = {
    KeyConditionExpression: `pk = :pk AND ${range.condition}`,
    ExpressionAttributeValues: { ':pk': keys.dailyStatsOfApp(appId), ...range.values },
    ...(range.projection ? { ProjectionExpression: range.projection } : {}),
  };
  for await (const items of pages(table, query)) yield* items;
}

function counterUpdate(table: Table, key: ItemKey, added: Record<string, number>): TransactItem {
  return { Update: { TableName: table.name, Key: key, ...additions(added) } };
}

/** Marks, audit items and the counters of several records, additions to one counter summed. */
function itemsOf(table: Table, works: RecordWork[], nowSeconds: number, retentionSeconds: number): TransactItem[] {
  const marks: TransactItem[] = works.map((work) => ({
    Put: { TableName: table.name, Item: { ...keys.streamRecord(work.recordId), ttl: nowSeconds + markSeconds }, ConditionExpression: 'attribute_not_exists(pk)' },
  }));
  const audits: TransactItem[] = works.flatMap((work) =>
    work.events.map((event) => {
      const licenseKey = work.licenseKeyOf(event);
      const position = keys.auditPosition(event.at, work.sequenceNumber, event.id);
      return {
        Put: {
          TableName: table.name,
          Item: {
            ...keys.audit(event.app_id, position),
            ...(licenseKey === undefined ? {} : keys.auditByLicense(event.app_id, licenseKey, position)),
            ...event,
            ttl: Math.floor(Date.parse(event.at) / 1000) + retentionSeconds,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      };
    }),
  );
  const changed = [...works.reduce(summed, new Map()).values()].filter(changes);
  return [...marks, ...audits, ...changed.map((sum) => counterUpdate(table, sum.key, sum.added))];
}

/** A counter item's additions from several records, summed: one update each. */
type CounterSums = Map<string, { key: ItemKey; added: Record<string, number> }>;

const changes = (sum: { added: Record<string, number> }) => Object.values(sum.added).some((amount) => amount !== 0);

/** `sums` with one record's counts and additions added, as a new map: the entries it touches are copied, `sums` is left as it was. */
function summed(sums: CounterSums, work: RecordWork): CounterSums {
  const next: CounterSums = new Map(sums);
  const counted = [...work.counts.map((count) => ({ key: keys.dailyStats(count.appId, count.day), counter: count.counter, amount: 1 })), ...work.additions];
  for (const addition of counted) {
    const id = `${addition.key.pk}\n${addition.key.sk}`;
    const sum = next.get(id);
    const added = { ...sum?.added };
    added[addition.counter] = (added[addition.counter] ?? 0) + addition.amount;
    next.set(id, { key: sum?.key ?? addition.key, added });
  }
  return next;
}

/**
 * The records in order, in chunks of at most `maxTransactItems` items (a record alone may
 * exceed it, and is a chunk of its own). A chunk's size is kept as records join it, its marks
 * and audit items counted and its counters summed, rather than by building its items again for
 * every record that joins (a step of 50 records built the items of 1,274 records to write 50).
 */
function chunked(works: RecordWork[]): RecordWork[][] {
  const chunks: RecordWork[][] = [];
  let current: { works: RecordWork[]; own: number; sums: CounterSums } | undefined;
  for (const work of works) {
    const own = 1 + work.events.length;
    if (current) {
      const sums = summed(current.sums, work);
      const size = current.own + own + [...sums.values()].filter(changes).length;
      if (size <= maxTransactItems) {
        current.works.push(work);
        current.own += own;
        current.sums = sums;
        continue;
      }
    }
    current = { works: [work], own, sums: summed(new Map(), work) };
    chunks.push(current.works);
  }
  return chunks;
}

/**
 * Does the work of these records, each exactly once. Records go together
 * in transactions of up to 100 items; when one of them was done before (a
 * redelivery), its mark's condition cancels the transaction and the
 * records are done one by one, the done ones skipped. Returns how many
 * records were done now (the rest were done before).
 */
export async function record(table: Table, works: RecordWork[], now: Date, retentionDays: number): Promise<number> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const retentionSeconds = retentionDays * 86400;
  const chunks = chunked(works);
  const write = (chunk: RecordWork[]) => conditional(transactWrite(table, itemsOf(table, chunk, nowSeconds, retentionSeconds)));
  let done = 0;
  for (const chunk of chunks) {
    if ((await write(chunk)).held) {
      done += chunk.length;
      continue;
    }
    if (chunk.length === 1) continue;
    for (const work of chunk) if ((await write([work])).held) done += 1;
  }
  return done;
}

/** Adds to one day's failed /auth count (the client function's periodic flush). */
export async function addAuthFailures(table: Table, appId: string, day: string, amount: number): Promise<void> {
  await updateItem(table, keys.dailyStats(appId, day), additions({ auth_failures: amount }), { unstamped: true });
}

/** The counters of an app's days from `firstDay` to `lastDay` (inclusive); days without any are absent. */
export async function days(table: Table, appId: string, firstDay: string, lastDay: string): Promise<Map<string, DayCounts>> {
  const found = new Map<string, DayCounts>();
  const range = { condition: 'sk BETWEEN :first AND :last', values: { ':first': keys.dailyStatsSortKey(firstDay), ':last': keys.dailyStatsSortKey(lastDay) } };
  for await (const item of statsItems(table, appId, range)) {
    const counts = dayCountsSchema.parse(item);
    found.set(String(item.sk).slice(keys.dailyStatsSortKey('').length), {
      created: counts.created ?? 0,
      activated: counts.activated ?? 0,
      logins: counts.logins ?? 0,
      auth_failures: counts.auth_failures ?? 0,
    });
  }
  return found;
}

/**
 * An app's audit items, newest first, optionally of one license, one type
 * and one actor, within a time range, after a position (the sort key of the
 * last item returned). Positions begin with the event's time, so the range
 * is a key condition of the query (it reads only the items inside it);
 * type and actor are filters over what it reads. Reads at most
 * `maxItemsReadPerList` items per call, like the license listing, so a rare type
 * or actor cannot make one request read a whole partition.
 */
export async function listAudit(table: Table, 
  appId: string,
  options: { licenseKey?: string; type?: string; actor?: string; from?: string; to?: string; limit: number; after?: string },
): Promise<{ events: AuditEvent[]; next?: string }> {
  const byLicense = options.licenseKey !== undefined;
  const partition = byLicense ? keys.auditOfLicense(appId, options.licenseKey!) : keys.auditOfApp(appId);
  const position = (sortKey: string): Record<string, unknown> => ({
    ...keys.audit(appId, sortKey),
    ...(byLicense ? keys.auditByLicense(appId, options.licenseKey!, sortKey) : {}),
  });
  const [partitionKey, sortKey] = byLicense ? ['gsi1pk', 'gsi1sk'] : ['pk', 'sk'];
  // A position is `<at>#…`: it sorts after `from` when at >= from, and before `to` exactly when at < to.
  const range =
    options.from !== undefined && options.to !== undefined
      ? ` AND ${sortKey} BETWEEN :from AND :to`
      : options.from !== undefined
        ? ` AND ${sortKey} >= :from`
        : options.to !== undefined
          ? ` AND ${sortKey} < :to`
          : '';
  const filters = { type: options.type, actor: options.actor };
  const filtered = Object.entries(filters).filter((entry): entry is [string, string] => entry[1] !== undefined);
  const filter = filtered.length === 0 ? {} : { FilterExpression: filtered.map(([name]) => `#${name} = :${name}`).join(' AND '), ExpressionAttributeNames: Object.fromEntries(filtered.map(([name]) => [`#${name}`, name])) };
  const { found, next } = await boundedList(table, {
    query: {
      ...(byLicense ? { IndexName: 'gsi1' } : {}),
      KeyConditionExpression: `${partitionKey} = :pk${range}`,
      ScanIndexForward: false,
      ...filter,
      ExpressionAttributeValues: {
        ':pk': partition,
        ...(options.from === undefined ? {} : { ':from': options.from }),
        ...(options.to === undefined ? {} : { ':to': options.to }),
        ...Object.fromEntries(filtered.map(([name, value]) => [`:${name}`, value])),
      },
    },
    ...(options.after === undefined ? {} : { startKey: position(options.after) }),
    limit: options.limit,
    readBound: maxItemsReadPerList,
    pageSize: (wanted) => (filtered.length === 0 ? wanted : 1000),
    keep: (items) => items.map((item) => ({ event: auditEventSchema.parse(item), sortKey: String(item[sortKey]) })),
  });
  const events = found.map((entry) => entry.event);
  if (!next) return { events };
  return { events, next: 'after' in next ? next.after.sortKey : String(next.key[sortKey]) };
}

/**
 * The totals of /app/stats from the counters the events consumer keeps: a
 * read of the totals item and one query per expiry level, whatever the
 * number of licenses. Expired: unpaused licenses expiring up to `now`.
 */
export async function licenseTotals(table: Table, appId: string, now: Date): Promise<Totals> {
  const time = now.toISOString();
  const expiredAt = async ({ level, length, within }: (typeof expiryLevels)[number]): Promise<number> => {
    // This day, hour or minute itself is counted by the finer levels; an instant up to now is expired.
    const last = keys.expirySortKey(level, time.slice(0, length));
    let sum = 0;
    const range = { condition: 'sk BETWEEN :first AND :last', values: { ':first': keys.expirySortKey(level, time.slice(0, within)), ':last': last } };
    for await (const item of statsItems(table, appId, range)) {
      const bucket = expiryCountSchema.parse(item);
      if (level === 'T' || bucket.sk !== last) sum += bucket.count ?? 0;
    }
    return sum;
  };
  const [item, ...expiring] = await Promise.all([getItem(table, keys.statsTotals(appId)), ...expiryLevels.map(expiredAt)]);
  const counted = totalsSchema.parse(item ?? {});
  const [licenses, paused, unused] = [counted.licenses ?? 0, counted.paused ?? 0, counted.unused ?? 0];
  const expired = expiring.reduce((sum, amount) => sum + amount, 0);
  return { licenses, active: licenses - paused - expired, paused, expired, unused };
}

/**
 * Sets an app's totals and expiry counts to those of these standings (the
 * admin CLI's recount): the totals item and every expiry count are
 * written anew, counts no standing has any more are deleted.
 */
export async function replaceTotals(table: Table, appId: string, standings: Standing[]): Promise<void> {
  const sums = new Map<string, { key: ItemKey; values: Record<string, number> }>();
  sums.set(`${keys.statsTotals(appId).sk}`, { key: keys.statsTotals(appId), values: { licenses: 0, paused: 0, unused: 0 } });
  for (const addition of standings.flatMap((standing) => standingAdditions(standing, 1))) {
    const sum = sums.get(addition.key.sk) ?? { key: addition.key, values: {} };
    sum.values[addition.counter] = (sum.values[addition.counter] ?? 0) + addition.amount;
    sums.set(addition.key.sk, sum);
  }
  const stale: ItemKey[] = [];
  const expiryCounts = { condition: 'begins_with(sk, :prefix)', values: { ':prefix': keys.expirySortKey() }, projection: 'pk, sk' };
  for await (const item of statsItems(table, appId, expiryCounts)) if (!sums.has(String(item.sk))) stale.push({ pk: String(item.pk), sk: String(item.sk) });
  const requests: WriteRequest[] = [
    ...[...sums.values()].map((sum) => ({ PutRequest: { Item: { ...sum.key, ...sum.values } } })),
    ...stale.map((key) => ({ DeleteRequest: { Key: key } })),
  ];
  await batchWrite(table, requests, 'writes');
}
