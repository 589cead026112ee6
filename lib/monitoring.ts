import { Duration, Stack } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as apigatewayv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { tableDefinition } from '../functions/data/table';
import { pascalCase } from './functions';

export interface MonitoringProps {
  stage: string;
  alarmEmail: string | undefined;
  /** The API stage whose 5xx rate is watched. */
  apiStage: apigateway.Stage;
  /** The HTTP API's stage, when it serves the client routes too: its 5xx rate is watched alike. */
  clientApiStage?: apigatewayv2.HttpStage;
  functions: Record<string, lambda.IFunction>;
  table: dynamodb.ITable;
  deadLetterQueue: sqs.IQueue;
}

const period = Duration.minutes(5);

/**
 * The alarm topic and the service's alarms: API 5xx rate, each function's errors
 * and throttles, table throttling and dead-lettered events. Owners subscribe to
 * the topic, or send their own alarms to it with `alarmAction`.
 */
export class Monitoring extends Construct {
  readonly alarmTopic: sns.Topic;
  /** Sends an alarm to the topic: `alarm.addAlarmAction(monitoring.alarmAction)`. */
  readonly alarmAction: cloudwatch.IAlarmAction;
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const topic = new sns.Topic(this, 'AlarmTopic', { displayName: `Licensing ${props.stage} alarms`, enforceSSL: true });
    // enforceSSL gives the topic a resource policy, which replaces SNS's default one: CloudWatch needs its own allow.
    topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          ArnLike: { 'aws:SourceArn': `arn:${stack.partition}:cloudwatch:${stack.region}:${stack.account}:alarm:*` },
          StringEquals: { 'aws:SourceAccount': stack.account },
        },
      }),
    );
    if (props.alarmEmail) topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    this.alarmTopic = topic;
    this.alarmAction = new cloudwatchActions.SnsAction(topic);

    this.alarm('Api5xxRateAlarm', {
      alarmDescription: 'More than 1% of API requests answered 5xx in two of three 5-minute periods',
      metric: props.apiStage.metricServerError({ statistic: cloudwatch.Stats.AVERAGE, period }),
      ...overOnePercentTwiceInThree,
    });
    if (props.clientApiStage) {
      // The Average of 5xx is its share of the stage's requests, as for the REST stage's 5XXError.
      this.alarm('ClientApi5xxRateAlarm', {
        alarmDescription: 'More than 1% of the client HTTP API\'s requests answered 5xx in two of three 5-minute periods',
        metric: props.clientApiStage.metricServerError({ statistic: cloudwatch.Stats.AVERAGE, period }),
        ...overOnePercentTwiceInThree,
      });
    }
    for (const [name, fn] of Object.entries(props.functions)) {
      const id = pascalCase(name);
      this.alarm(`${id}ErrorsAlarm`, {
        alarmDescription: `The ${name} Lambda failed (uncaught error, timeout or crash); handled errors do not count`,
        metric: fn.metricErrors({ statistic: cloudwatch.Stats.SUM, period }),
        ...atLeastOnce,
      });
      this.alarm(`${id}ThrottlesAlarm`, {
        alarmDescription: `The ${name} Lambda was throttled: the account's concurrency limit was reached`,
        metric: fn.metricThrottles({ statistic: cloudwatch.Stats.SUM, period }),
        ...atLeastOnce,
      });
    }
    this.alarm('TableThrottlesAlarm', {
      alarmDescription: 'DynamoDB throttled reads or writes of the table or an index (on-demand limits or a hot key)',
      metric: tableThrottleEvents(props.table.tableName),
      ...atLeastOnce,
    });
    this.alarm('EventsDeadLetterAlarm', {
      alarmDescription: 'Events or stream records were dead-lettered: see the events dead-letter queue and the events function logs',
      metric: props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: cloudwatch.Stats.MAXIMUM, period }),
      ...atLeastOnce,
    });
  }

  private alarm(id: string, props: cloudwatch.AlarmProps): void {
    const alarm = new cloudwatch.Alarm(this, id, { treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING, ...props });
    alarm.addAlarmAction(this.alarmAction);
    this.alarms.push(alarm);
  }
}

const overOnePercentTwiceInThree = {
  threshold: 0.01,
  comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
  evaluationPeriods: 3,
  datapointsToAlarm: 2,
};

const atLeastOnce = { threshold: 1, comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD, evaluationPeriods: 1 };

/**
 * Throttle events of the table and every index, summed. ThrottledRequests is only published
 * per operation; the throttle events carry the bare TableName dimension.
 */
function tableThrottleEvents(tableName: string): cloudwatch.MathExpression {
  const throttleEvents = (metricName: string, dimensionsMap: Record<string, string>) =>
    new cloudwatch.Metric({ namespace: 'AWS/DynamoDB', metricName, dimensionsMap, statistic: cloudwatch.Stats.SUM, period });
  const throttleSources = [
    { TableName: tableName },
    ...tableDefinition.globalSecondaryIndexes.map((index) => ({ TableName: tableName, GlobalSecondaryIndexName: index.indexName })),
  ];
  const usingMetrics: Record<string, cloudwatch.IMetric> = {};
  throttleSources.forEach((dimensions, source) => {
    usingMetrics[`read${source}`] = throttleEvents('ReadThrottleEvents', dimensions);
    usingMetrics[`write${source}`] = throttleEvents('WriteThrottleEvents', dimensions);
  });
  return new cloudwatch.MathExpression({
    expression: Object.keys(usingMetrics).map((id) => `FILL(${id}, 0)`).join(' + '),
    usingMetrics,
    label: 'Throttle events',
    period,
  });
}
