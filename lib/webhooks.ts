import { Duration, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { eventSource } from '../functions/events/sinks';

export interface WebhookDeliveryProps {
  /** The bus every event goes to (lib/events.ts). */
  eventBus: events.IEventBus;
  /** The delivery function (functions/delivery/). */
  delivery: lambda.Function;
  /** The webhook routes' function: /webhook/redeliver queues attempts. */
  routes: lambda.Function;
  alarmAction: cloudwatch.IAlarmAction;
}

/**
 * Webhooks on AWS (docs/webhooks.md#on-aws): a rule sends every event of the
 * bus to the delivery queue; the delivery function takes batches of it,
 * fans events out to the app's endpoints, makes attempts, and queues each
 * retry on the same queue with a delay. A wait longer than SQS's 15-minute
 * delay is made of hops: the message comes back early, is queued again for
 * what is left, and so on (at most 40 hops for the 10-hour waits). Messages
 * handed over five times without success go to the dead-letter queue, whose
 * alarm goes to the service's alarm topic.
 */
export class WebhookDelivery extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly deadLetterAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: WebhookDeliveryProps) {
    super(scope, id);
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is the dead-letter queue of the webhook delivery queue; it has an alarm, not a dead-letter queue of its own.',
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Six times the function's timeout, as AWS advises for a queue a function reads; more than an attempt's lease.
      visibilityTimeout: Duration.minutes(6),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: 5 },
    });
    new events.Rule(this, 'EveryEvent', {
      eventBus: props.eventBus,
      description: 'Every event of the service, to the webhook delivery queue',
      eventPattern: { source: [eventSource] },
      targets: [new targets.SqsQueue(this.queue)],
    });
    props.delivery.addEventSource(new SqsEventSource(this.queue, { batchSize: 10, reportBatchItemFailures: true }));
    for (const fn of [props.delivery, props.routes]) {
      fn.addEnvironment('WEBHOOK_QUEUE_URL', this.queue.queueUrl);
      // Only sends: CDK's grantSendMessages would add GetQueueAttributes and GetQueueUrl, which neither uses.
      fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
    }
    this.deadLetterAlarm = new cloudwatch.Alarm(this, 'DeadLetterAlarm', {
      alarmDescription: 'Webhook delivery messages were given up on: see docs/webhooks.md#on-aws',
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: cloudwatch.Stats.MAXIMUM, period: Duration.minutes(5) }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.deadLetterAlarm.addAlarmAction(props.alarmAction);
  }
}
