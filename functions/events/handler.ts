import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { lambdaDepsFromEnv } from '#core/deps';
import { consumeBatch, type ConsumerDeps } from './consumer';
import { eventBridgeSink } from './sinks';
import { toStreamChange } from './stream-record';

let consumerDeps: Promise<ConsumerDeps> | undefined;

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
 * items and daily counters. A failure reports the first record not done
 * (ReportBatchItemFailures), so the stream delivers it and what follows again.
 */
export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  consumerDeps ??= createConsumerDeps();
  const outcome = await consumeBatch(await consumerDeps, event.Records.map(toStreamChange));
  return { batchItemFailures: outcome.failedSequenceNumber === undefined ? [] : [{ itemIdentifier: outcome.failedSequenceNumber }] };
}
