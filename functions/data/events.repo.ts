import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { indexPartitionPages, maxTransactItems, transactWrite, type Table, type TransactItem } from './db';
import { keys } from './keys';
import { cancelledByCondition } from './retry';

/**
 * The events consumer's writes (audit items, daily counters, the marks of
 * records done) and the reads of /audit/get-bulk and /app/stats. Event shapes
 * are the consumer's; here they are items.
 */
export const auditEventSchema = z.object({
  id: z.string(),
  type: z.string(),
  app_id: z.string(),
  /** The license key, subscription id, or `<type>:<value>` of a blacklist entry. */
  subject: z.string(),
  at: z.string(),
  /** `api_key:<first 8 hex of its hash>`, `client` or `admin`. */
  actor: z.string(),
  before: z.optional(z.record(z.string(), z.unknown())),
  after: z.optional(z.record(z.string(), z.unknown())),
});
export type AuditEvent = z.infer<typeof auditEventSchema>;

export type DayCounter = 'created' | 'activated' | 'logins' | 'auth_failures';

/** What one stream record does to the table: audit items for its events, additions to daily counters. */
export interface RecordWork {
  /** The stream record's id: its mark makes the work happen once. */
  recordId: string;
  /** The stream record's sequence number: orders the audit log within a second. */
  sequenceNumber: string;
  events: AuditEvent[];
  counts: { appId: string; day: string; counter: Exclude<DayCounter, 'auth_failures'> }[];
  /** License events are also listed under their license. */
  licenseKeyOf: (event: AuditEvent) => string | undefined;
}

export type DayCounts = Record<DayCounter, number>;

/** Streams keep records 24 hours: a mark only has to outlive any redelivery. */
const markSeconds = 2 * 86400;

const dayCountsSchema = z.object({
  created: z.optional(z.number()),
  activated: z.optional(z.number()),
  logins: z.optional(z.number()),
  auth_failures: z.optional(z.number()),
});

export function createEventsRepo(table: Table) {
  const counterUpdate = (appId: string, day: string, added: Partial<DayCounts>): TransactItem => {
    const entries = Object.entries(added).filter(([, amount]) => amount !== 0);
    return {
      Update: {
        TableName: table.name,
        Key: keys.dailyStats(appId, day),
        UpdateExpression: `ADD ${entries.map(([counter]) => `${counter} :${counter}`).join(', ')}`,
        ExpressionAttributeValues: Object.fromEntries(entries.map(([counter, amount]) => [`:${counter}`, amount])),
      },
    };
  };

  /** Marks, audit items and the counters of several records, additions to one counter summed. */
  const itemsOf = (works: RecordWork[], nowSeconds: number, retentionSeconds: number): TransactItem[] => {
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
    const sums = new Map<string, { appId: string; day: string; added: Partial<DayCounts> }>();
    for (const count of works.flatMap((work) => work.counts)) {
      const id = `${count.appId}\n${count.day}`;
      const sum = sums.get(id) ?? { appId: count.appId, day: count.day, added: {} };
      sum.added[count.counter] = (sum.added[count.counter] ?? 0) + 1;
      sums.set(id, sum);
    }
    return [...marks, ...audits, ...[...sums.values()].map((sum) => counterUpdate(sum.appId, sum.day, sum.added))];
  };

  return {
    /**
     * Does the work of these records, each exactly once. Records go together
     * in transactions of up to 100 items; when one of them was done before (a
     * redelivery), its mark's condition cancels the transaction and the
     * records are done one by one, the done ones skipped. Returns how many
     * records were done now (the rest were done before).
     */
    async record(works: RecordWork[], now: Date, retentionDays: number): Promise<number> {
      const nowSeconds = Math.floor(now.getTime() / 1000);
      const retentionSeconds = retentionDays * 86400;
      const chunks: RecordWork[][] = [];
      for (const work of works) {
        const last = chunks.at(-1);
        if (last && itemsOf([...last, work], nowSeconds, retentionSeconds).length <= maxTransactItems) last.push(work);
        else chunks.push([work]);
      }
      let done = 0;
      for (const chunk of chunks) {
        try {
          await transactWrite(table, itemsOf(chunk, nowSeconds, retentionSeconds));
          done += chunk.length;
          continue;
        } catch (error) {
          if (!cancelledByCondition(error) || chunk.length === 1) {
            if (cancelledByCondition(error)) continue;
            throw error;
          }
        }
        for (const work of chunk) {
          try {
            await transactWrite(table, itemsOf([work], nowSeconds, retentionSeconds));
            done += 1;
          } catch (error) {
            if (!cancelledByCondition(error)) throw error;
          }
        }
      }
      return done;
    },

    /** Adds to one day's failed /auth count (the client function's periodic flush). */
    async addAuthFailures(appId: string, day: string, amount: number): Promise<void> {
      const update = counterUpdate(appId, day, { auth_failures: amount }).Update!;
      await table.doc.send(new UpdateCommand({ ...update }));
    },

    /** The counters of an app's days from `firstDay` to `lastDay` (inclusive); days without any are absent. */
    async days(appId: string, firstDay: string, lastDay: string): Promise<Map<string, DayCounts>> {
      const found = new Map<string, DayCounts>();
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await table.doc.send(
          new QueryCommand({
            TableName: table.name,
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
            ExpressionAttributeValues: { ':pk': keys.dailyStatsOfApp(appId), ':first': keys.dailyStatsSortKey(firstDay), ':last': keys.dailyStatsSortKey(lastDay) },
            ExclusiveStartKey: startKey,
          }),
        );
        for (const item of page.Items ?? []) {
          const counts = dayCountsSchema.parse(item);
          found.set(String(item.sk).slice(keys.dailyStatsSortKey('').length), {
            created: counts.created ?? 0,
            activated: counts.activated ?? 0,
            logins: counts.logins ?? 0,
            auth_failures: counts.auth_failures ?? 0,
          });
        }
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return found;
    },

    /**
     * An app's audit items, newest first, optionally of one license and one
     * type, after a position (the sort key of the last item returned). Reads
     * at most `maxItemsRead` items per call, like the license listing, so a
     * rare type cannot make one request read a whole partition.
     */
    async listAudit(
      appId: string,
      options: { licenseKey?: string; type?: string; limit: number; after?: string },
    ): Promise<{ events: AuditEvent[]; next?: string }> {
      const byLicense = options.licenseKey !== undefined;
      const partition = byLicense ? keys.auditOfLicense(appId, options.licenseKey!) : keys.auditOfApp(appId);
      const position = (sortKey: string): Record<string, unknown> => ({
        ...keys.audit(appId, sortKey),
        ...(byLicense ? keys.auditByLicense(appId, options.licenseKey!, sortKey) : {}),
      });
      let startKey: Record<string, unknown> | undefined = options.after === undefined ? undefined : position(options.after);
      const found: { event: AuditEvent; sortKey: string }[] = [];
      let unread = maxItemsRead;
      do {
        const page = await table.doc.send(
          new QueryCommand({
            TableName: table.name,
            ...(byLicense ? { IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk' } : { KeyConditionExpression: 'pk = :pk' }),
            ScanIndexForward: false,
            Limit: Math.min(options.type === undefined ? options.limit + 1 - found.length : 1000, unread),
            ...(options.type === undefined ? {} : { FilterExpression: '#type = :type', ExpressionAttributeNames: { '#type': 'type' } }),
            ExpressionAttributeValues: { ':pk': partition, ...(options.type === undefined ? {} : { ':type': options.type }) },
            ExclusiveStartKey: startKey,
          }),
        );
        for (const item of page.Items ?? []) found.push({ event: auditEventSchema.parse(item), sortKey: String(byLicense ? item.gsi1sk : item.sk) });
        unread -= page.ScannedCount ?? 0;
        startKey = page.LastEvaluatedKey;
      } while (startKey && found.length <= options.limit && unread > 0);
      const events = found.slice(0, options.limit);
      if (found.length > options.limit) return { events: events.map((entry) => entry.event), next: events.at(-1)!.sortKey };
      if (!startKey) return { events: events.map((entry) => entry.event) };
      return { events: events.map((entry) => entry.event), next: String(byLicense ? startKey.gsi1sk : startKey.sk) };
    },

    /**
     * The totals of /app/stats, counted over the app's licenses in the
     * listing index (only the three fields the count needs come back).
     */
    async licenseTotals(appId: string, now: Date): Promise<{ licenses: number; active: number; paused: number; expired: number; unused: number }> {
      const totals = { licenses: 0, active: 0, paused: 0, expired: 0, unused: 0 };
      const nowIso = now.toISOString();
      const projection = { expression: '#status, expires_at, first_used_at', names: { '#status': 'status' } };
      for await (const items of indexPartitionPages(table, keys.licensesOfApp(appId), projection)) {
        for (const item of items) {
          totals.licenses += 1;
          if (item.first_used_at == null) totals.unused += 1;
          if (item.status === 'paused') totals.paused += 1;
          else if (typeof item.expires_at === 'string' && item.expires_at <= nowIso) totals.expired += 1;
          else totals.active += 1;
        }
      }
      return totals;
    },
  };
}

/** Items one audit listing request may read before it answers what it found (as the license listing). */
const maxItemsRead = 2000;
