import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface EventsPipelineProps {
  stage: string;
  /** The table whose stream the events are made from. */
  table: dynamodb.ITable;
  /** The events function (functions/events/). */
  consumer: lambda.Function;
  auditRetentionDays: number;
}

/**
 * Stream → events function → EventBridge bus: batches in shard order, a failed
 * record retried (ReportBatchItemFailures, bisected on error), given up after the
 * retry limit to the dead-letter queue, whose alarm tells the owner. Only changes
 * of items events are made of reach the function (the consumer's own audit items,
 * counters and marks are filtered out before any invocation).
 */
export class EventsPipeline extends Construct {
  /** Every event of docs/events.md; owners add their own rules and targets. */
  readonly eventBus: events.EventBus;
  /** Stream records the consumer kept failing on, and events EventBridge kept refusing. */
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: EventsPipelineProps) {
    super(scope, id);
    this.eventBus = new events.EventBus(this, 'EventBus', { eventBusName: `licensing-${props.stage}` });
    this.deadLetterQueue = new sqs.Queue(this, 'EventsDeadLetterQueue', {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    const fn = props.consumer;
    fn.addEnvironment('EVENT_BUS_NAME', this.eventBus.eventBusName);
    fn.addEnvironment('EVENTS_DLQ_URL', this.deadLetterQueue.queueUrl);
    fn.addEnvironment('AUDIT_RETENTION_DAYS', String(props.auditRetentionDays));
    this.eventBus.grantPutEventsTo(fn);
    // The sink dead-letters refused events, and the event source mapping failed records, under the
    // function's role: both only send. CDK's grantSendMessages (and SqsDlq, which calls it) would add
    // GetQueueAttributes and GetQueueUrl, which neither uses: the URL comes in EVENTS_DLQ_URL.
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.deadLetterQueue.queueArn] }));
    const deadLetters: lambda.IEventSourceDlq = { bind: () => ({ destination: this.deadLetterQueue.queueArn }) };
    fn.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(1),
        bisectBatchOnError: true,
        retryAttempts: 10,
        reportBatchItemFailures: true,
        onFailure: deadLetters,
        filters: [
          lambda.FilterCriteria.filter({
                        dynamodb: { Keys: { sk: { S: ['APP', 'LIC', 'SUB', 'WEBHOOK', 'STRIPE', ...lambda.FilterRule.beginsWith('BL#'), ...lambda.FilterRule.beginsWith('USER#')] } } },
          }),
        ],
      }),
    );
  }
}
