import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Logger } from '#core/logger';
import { backoffDelay, sleep } from '#data/backoff';
import type { EventSink } from './consumer';
import type { ServiceEvent } from './derive';

/** The `source` of every event on the bus: what an owner's rule matches on. */
export const eventSource = 'licensing-service';

/** PutEvents and SendMessageBatch take 10 entries a call. */
const perCall = 10;
/** Entries EventBridge refused are sent again this many times before they are dead-lettered. */
const deliveryAttempts = 4;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

export function busEntry(event: ServiceEvent, busName: string): PutEventsRequestEntry {
  return { EventBusName: busName, Source: eventSource, DetailType: event.type, Detail: JSON.stringify(event), Time: new Date(event.at) };
}

/**
 * EventBridge, batched. Entries it refuses (FailedEntryCount) are retried
 * with backoff; those still refused go to the dead-letter queue with the
 * reason, so an event is never silently dropped.
 */
export function eventBridgeSink(deps: { bus: EventBridgeClient; sqs: SQSClient; busName: string; deadLetterQueueUrl: string; logger: Logger }): EventSink {
  const deadLetter = async (refused: { event: ServiceEvent; reason: string }[]) => {
    deps.logger.error('events dead-lettered', { count: refused.length, ids: refused.map((entry) => entry.event.id) });
    for (const batch of chunks(refused, perCall)) {
      const answer = await deps.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: deps.deadLetterQueueUrl,
          Entries: batch.map((entry, index) => ({ Id: String(index), MessageBody: JSON.stringify({ reason: entry.reason, event: entry.event }) })),
        }),
      );
      if ((answer.Failed ?? []).length > 0) throw new Error(`dead-letter queue refused ${answer.Failed!.length} events`);
    }
  };
  return {
    async deliver(events) {
      for (const batch of chunks(events, perCall)) {
        let pending = batch.map((event) => ({ event, reason: '' }));
        for (let attempt = 0; pending.length > 0 && attempt < deliveryAttempts; attempt++) {
          if (attempt > 0) await sleep(backoffDelay(attempt));
          const answer = await deps.bus.send(new PutEventsCommand({ Entries: pending.map((entry) => busEntry(entry.event, deps.busName)) }));
          if (!answer.FailedEntryCount) {
            pending = [];
            break;
          }
          // Results are in the order of the entries; a refused one carries an ErrorCode.
          pending = pending
            .map((entry, index) => ({ ...entry, reason: answer.Entries?.[index]?.ErrorCode ? `${answer.Entries[index].ErrorCode}: ${answer.Entries[index].ErrorMessage ?? ''}` : '' }))
            .filter((entry) => entry.reason !== '');
        }
        if (pending.length > 0) await deadLetter(pending);
      }
    },
  };
}

/**
 * Local development: the debug log names each event by type and fingerprint
 * only (the consumer logs no images); with EVENTS_WEBHOOK_URL each whole event
 * is POSTed there as JSON. A webhook
 * that fails is logged and skipped: it is a developer's tool, not a delivery
 * guarantee.
 */
export function localSink(deps: { webhookUrl: string | undefined; logger: Logger }): EventSink {
  return {
    async deliver(events) {
      if (!deps.webhookUrl) return;
      for (const event of events) {
        try {
          const response = await fetch(deps.webhookUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(event),
            signal: AbortSignal.timeout(5000),
          });
          if (!response.ok) deps.logger.warn('event webhook answered an error', { status: response.status, event_id: event.id });
        } catch (error) {
          deps.logger.warn('event webhook unreachable', { event_id: event.id, error_message: error instanceof Error ? error.message : String(error) });
        }
      }
    },
  };
}
