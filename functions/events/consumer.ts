import type { Config } from '#core/config';
import type { Clock } from '#shared/clock';
import { describeError, licenseFingerprint, valueFingerprint, type Logger } from '#core/logger';
import type { AuditEvent } from '#data/model/audit';
import type { Table } from '#data/db';
import { effectsOf, type ServiceEvent, type StreamChange } from './derive';
import * as events from '#data/events.repo';
import * as lookups from '#data/lookup.repo';
import { toStreamChange, type RawStreamRecord } from './stream-record';

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

/** A step's failure, with the license keys its error may quote (the log shows them as fingerprints). */
class StepFailure extends Error {
  constructor(
    cause: unknown,
    readonly licenseKeys: string[],
  ) {
    super('stream step failed', { cause });
  }
}

/** Writes the audit items and counters of `step` (once per record: see `record` in data/events.repo.ts), then delivers its events. */
async function consumeStep(deps: ConsumerDeps, step: StreamChange[]): Promise<{ recorded: number; events: number }> {
  const effects = step.map((change) => ({ change, ...effectsOf(change) }));
  try {
    // Before the record's marks: a step that fails after these comes again and writes the same entries.
    await lookups.apply(deps.table, effects.flatMap((effect) => effect.lookups ?? []));
    const recorded = await events.record(
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
    return { recorded, events: derived.length };
  } catch (error) {
    const licenseKeys = effects.flatMap((effect) => effect.events.flatMap((event) => licenseKeyOf(event) ?? []));
    throw new StepFailure(error, licenseKeys);
  }
}

/**
 * One batch of stream records, in order. Each step first writes audit items
 * and counters, then delivers the step's events; a redelivered record skips
 * the writes but delivers its events again, with the same ids. A step that
 * fails is done again record by record, so the records before the one that
 * fails are done and the failure names that record: the rest is left for the
 * stream to deliver again (ReportBatchItemFailures with that record, which
 * the event source mapping bisects at), and a record that fails every time
 * is isolated at once rather than holding its whole step back.
 */
export async function consumeBatch(deps: ConsumerDeps, changes: StreamChange[]): Promise<BatchOutcome> {
  let recorded = 0;
  let delivered = 0;
  const add = (done: { recorded: number; events: number }) => {
    recorded += done.recorded;
    delivered += done.events;
  };
  for (let start = 0; start < changes.length; start += stepSize) {
    const step = changes.slice(start, start + stepSize);
    try {
      add(await consumeStep(deps, step));
      continue;
    } catch (error) {
      if (step.length === 1) return failed(deps, step[0]!, error, { recorded, events: delivered });
      deps.logger.warn('stream step failed, its records are done one by one', { first_sequence_number: step[0]!.sequenceNumber, ...describeFailure(error) });
    }
    for (const change of step) {
      try {
        add(await consumeStep(deps, [change]));
      } catch (error) {
        return failed(deps, change, error, { recorded, events: delivered });
      }
    }
  }
  return { recorded, events: delivered };
}

const describeFailure = (error: unknown) => (error instanceof StepFailure ? describeError(error.cause, error.licenseKeys) : describeError(error));

function failed(deps: ConsumerDeps, change: StreamChange, error: unknown, done: { recorded: number; events: number }): BatchOutcome {
  deps.logger.error('stream record not processed', { sequence_number: change.sequenceNumber, event_id: change.eventId, ...describeFailure(error) });
  return { ...done, failedSequenceNumber: change.sequenceNumber };
}

/**
 * Stream records as the Lambda event and the Streams API give them: each is
 * read on its own, so a record that cannot be read is reported as the failed
 * one (after the records before it are done) instead of failing its batch.
 */
export async function consumeRecords(deps: ConsumerDeps, records: readonly RawStreamRecord[]): Promise<BatchOutcome> {
  const changes: StreamChange[] = [];
  for (const record of records) {
    try {
      changes.push(toStreamChange(record));
    } catch (error) {
      const outcome = await consumeBatch(deps, changes);
      if (outcome.failedSequenceNumber !== undefined) return outcome;
      const sequenceNumber = record.dynamodb?.SequenceNumber ?? '';
      deps.logger.error('stream record not readable', { sequence_number: sequenceNumber, event_id: record.eventID, ...describeError(error) });
      return { ...outcome, failedSequenceNumber: sequenceNumber };
    }
  }
  return consumeBatch(deps, changes);
}
