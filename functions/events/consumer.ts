import type { Config } from '#core/config';
import type { Clock } from '#shared/clock';
import { describeError, licenseFingerprint, valueFingerprint, type Logger } from '#core/logger';
import type { AuditEvent } from '#data/model/audit';
import type { Table } from '#data/db';
import { effectsOf, type ServiceEvent, type StreamChange } from './derive';
import * as events from '#data/events.repo';
import * as lookups from '#data/lookup.repo';

/** Where events go: EventBridge on AWS; the log and an optional webhook locally. */
export interface EventSink {
  /** Delivers the events; what it could not deliver after its own retries it dead-letters. Throws only when even that failed. */
  deliver(events: ServiceEvent[]): Promise<void>;
}

export interface ConsumerDeps {
  config: Pick<Config, 'auditRetentionDays'>;
  clock: Clock;
  logger: Logger;
  table: Table;
  sink: EventSink;
}

export interface BatchOutcome {
  /** Records whose work was done by this call (the others were done before, or not reached). */
  recorded: number;
  events: number;
  /** The first record not fully processed: it and every later record of the shard must come again. */
  failedSequenceNumber?: string;
}

const licenseKeyOf = (event: AuditEvent) => (event.type.startsWith('license.') ? event.subject : undefined);

/**
 * An event as the log shows it: its type and ids, never its images (they hold
 * the license key, username and HWIDs). A license's key and a blacklisted
 * value appear as fingerprints, enough to follow one subject across lines.
 */
function loggedEvent(event: ServiceEvent): Record<string, unknown> {
  const licenseKey = licenseKeyOf(event);
  const [listType, ...listed] = event.type.startsWith('blacklist.') ? event.subject.split(':') : [];
  const subject =
    licenseKey !== undefined ? `license:${licenseFingerprint(licenseKey)}` : listType !== undefined ? `${listType}:${valueFingerprint(listed.join(':'))}` : event.subject;
  return { event_id: event.id, type: event.type, app_id: event.app_id, subject, actor: event.actor };
}

/** Records handled per step: the audit/counter write and the delivery of their events. */
const stepSize = 50;

/**
 * One batch of stream records, in order. Each step first writes audit items
 * and counters (once per record: see `record` in data/events.repo.ts), then delivers the
 * step's events; a redelivered record skips the writes but delivers its events
 * again, with the same ids. At the first failure the rest is left for the
 * stream to deliver again (ReportBatchItemFailures with that record).
 */
export async function consumeBatch(deps: ConsumerDeps, changes: StreamChange[]): Promise<BatchOutcome> {
  let recorded = 0;
  let delivered = 0;
  for (let start = 0; start < changes.length; start += stepSize) {
    const step = changes.slice(start, start + stepSize);
    const effects = step.map((change) => ({ change, ...effectsOf(change) }));
    try {
      // Before the record's marks: a step that fails after these comes again and writes the same entries.
      await lookups.apply(deps.table, effects.flatMap((effect) => effect.lookups ?? []));
      recorded += await events.record(
        deps.table,
        effects
          .filter((effect) => effect.events.length > 0 || effect.counts.length > 0 || (effect.additions ?? []).length > 0)
          .map((effect) => ({
            recordId: effect.change.eventId,
            sequenceNumber: effect.change.sequenceNumber,
            events: effect.events,
            counts: effect.counts,
            additions: effect.additions ?? [],
            licenseKeyOf,
          })),
        deps.clock.now(),
        deps.config.auditRetentionDays,
      );
      const derived = effects.flatMap((effect) => effect.events);
      for (const event of derived) deps.logger.debug('event', loggedEvent(event));
      if (derived.length > 0) await deps.sink.deliver(derived);
      delivered += derived.length;
    } catch (error) {
      const licenseKeys = effects.flatMap((effect) => effect.events.flatMap((event) => licenseKeyOf(event) ?? []));
      deps.logger.error('stream records not processed', { first_sequence_number: step[0]!.sequenceNumber, ...describeError(error, licenseKeys) });
      return { recorded, events: delivered, failedSequenceNumber: step[0]!.sequenceNumber };
    }
  }
  return { recorded, events: delivered };
}
