import { Match } from 'aws-cdk-lib/assertions';
import { logicalId, statementsOfRole, synthesize, type Synthesized } from './stack-fixture';

let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({}, { bundle: false });
});

const ref = (construct: Parameters<typeof logicalId>[1]) => ({ Ref: logicalId(synth.stack, construct) });
const arnOf = (construct: Parameters<typeof logicalId>[1]) => ({ 'Fn::GetAtt': [logicalId(synth.stack, construct), 'Arn'] });

const statementsOf = (role: Parameters<typeof logicalId>[1]) => statementsOfRole(synth, role);

describe('events', () => {
  it('streams the table with new and old images', () => {
    synth.template.hasResourceProperties('AWS::DynamoDB::Table', { StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' } });
  });

  it('feeds the consumer from the stream, reporting failed records, bisecting, retrying a bounded number of times, then dead-lettering', () => {
    synth.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: ref(synth.service.functions.events),
      EventSourceArn: { 'Fn::GetAtt': [logicalId(synth.stack, synth.service.table), 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      DestinationConfig: { OnFailure: { Destination: arnOf(synth.service.eventsDeadLetterQueue) } },
      // Only entities' own items: the consumer's audit items, counters and marks never invoke it.
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify({ dynamodb: { Keys: { sk: { S: ['APP', 'LIC', 'SUB', 'WEBHOOK', 'STRIPE', { prefix: 'BL#' }, { prefix: 'USER#' }] } } } }) }] },
    });
    expect(Object.keys(synth.template.findResources('AWS::Lambda::EventSourceMapping', { Properties: { FunctionName: ref(synth.service.functions.events) } }))).toHaveLength(1);
  });

  it('creates the bus and tells the consumer where it and the dead-letter queue are, with the audit retention', () => {
    synth.template.hasResourceProperties('AWS::Events::EventBus', { Name: 'licensing-prod' });
    const consumer = synth.template.findResources('AWS::Lambda::Function')[logicalId(synth.stack, synth.service.functions.events)];
    expect(consumer!.Properties.Environment.Variables).toMatchObject({
      EVENT_BUS_NAME: ref(synth.service.eventBus),
      EVENTS_DLQ_URL: ref(synth.service.eventsDeadLetterQueue),
      AUDIT_RETENTION_DAYS: '90',
    });
  });

  it('alarms as soon as anything reaches the dead-letter queue', () => {
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(synth.stack, synth.service.eventsDeadLetterQueue), 'QueueName'] } }],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [ref(synth.service.alarmTopic)],
    });
  });

  it('grants the consumer nothing beyond what it uses: its stream, its partitions, the bus, the queue', () => {
    const statements = statementsOf(synth.service.functions.events.role);
    const actions = statements.flatMap((statement) => [statement.Action].flat()).sort();
    expect(actions).toEqual(
      [
        'dynamodb:BatchWriteItem',
        'dynamodb:DescribeStream',
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
        'dynamodb:ListStreams',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'events:PutEvents',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'sqs:SendMessage',
        'xray:PutTelemetryRecords',
        'xray:PutTraceSegments',
      ].sort(),
    );
    const itemPuts = statements.find((statement) => [statement.Action].flat().includes('dynamodb:PutItem'))!;
    expect(itemPuts.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['STREAM#*', 'APP#*#AUDIT*'] } });
    const updates = statements.find((statement) => [statement.Action].flat().includes('dynamodb:UpdateItem'))!;
    expect(updates.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['APP#*#STATS'] } });
    const batches = statements.find((statement) => [statement.Action].flat().includes('dynamodb:BatchWriteItem'))!;
    expect(batches.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['APP#*#DEV#*', 'APP#*#BYEXPIRY', 'APP#*#EMAIL#*'] } });
    const puts = statements.find((statement) => [statement.Action].flat().includes('events:PutEvents'))!;
    expect(puts.Resource).toEqual(arnOf(synth.service.eventBus));
    expect(JSON.stringify(statements)).not.toMatch(/dynamodb:(GetItem|Query|Scan|DeleteItem)/);
  });

  it('lets no other function publish events or write audit items', () => {
    for (const [name, fn] of Object.entries(synth.service.functions)) {
      if (name === 'events') continue;
      const text = JSON.stringify(statementsOf(fn.role));
      expect(text).not.toContain('events:PutEvents');
      expect(text).not.toMatch(/AUDIT|STREAM#/);
    }
    synth.template.hasResourceProperties('AWS::SQS::Queue', { MessageRetentionPeriod: 14 * 86400, SqsManagedSseEnabled: true });
    synth.template.hasResourceProperties('AWS::SQS::QueuePolicy', Match.objectLike({}));
  });
});
