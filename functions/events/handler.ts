import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { lambdaDepsFromEnv } from '#core/deps';
import { consumeRecords, type ConsumerDeps } from './consumer';
import { eventBridgeSink } from './sinks';

async function createConsumerDeps(): Promise<ConsumerDeps> {
  const deps = await lambdaDepsFromEnv();
  const { eventBusName, eventsDeadLetterQueueUrl, region } = deps.config;
  if (!eventBusName || !eventsDeadLetterQueueUrl) throw new Error('EVENT_BUS_NAME and EVENTS_DLQ_URL must be set on the events function');
  const clientOptions = { region, maxAttempts: 4 };
  const sink = eventBridgeSink({
    bus: new EventBridgeClient(clientOptions),
    sqs: new SQSClient(clientOptions),
    busName: eventBusName,
    deadLetterQueueUrl: eventsDeadLetterQueueUrl,
    logger: deps.logger,
  });
  return { ...deps, sink };
}

/**
 * The table's stream (no route): each batch's records become events, audit
 * items and daily counters. A record that cannot be read or done is reported
 * alone (ReportBatchItemFailures), the records before it done: the event
 * source mapping bisects the batch at it and retries from it, and once its
 * retries are spent sends the record's place in the stream to the on-failure
 * destination (the events dead-letter queue) and goes on with the next one
 * (lib/events.ts).
 */
export function createEventsHandler(deps: () => Promise<ConsumerDeps>) {
  let consumerDeps: Promise<ConsumerDeps> | undefined;
  return async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    consumerDeps ??= deps();
    const outcome = await consumeRecords(await consumerDeps, event.Records);
    return { batchItemFailures: outcome.failedSequenceNumber === undefined ? [] : [{ itemIdentifier: outcome.failedSequenceNumber }] };
  };
}

export const handler = createEventsHandler(createConsumerDeps);
