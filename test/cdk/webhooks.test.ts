import { logicalId, statementsOfRole, synthesize, type Synthesized } from './stack-fixture';

let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({}, { bundle: false });
});

const ref = (construct: Parameters<typeof logicalId>[1]) => ({ Ref: logicalId(synth.stack, construct) });
const arnOf = (construct: Parameters<typeof logicalId>[1]) => ({ 'Fn::GetAtt': [logicalId(synth.stack, construct), 'Arn'] });

const statementsOf = (role: Parameters<typeof logicalId>[1]) => statementsOfRole(synth, role);

const actions = (statement: { Action: string | string[] }) => [statement.Action].flat();

describe('webhook delivery on AWS', () => {
  it('sends every event of the bus to the delivery queue', () => {
    synth.template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: ref(synth.service.eventBus),
      EventPattern: { source: ['licensing-service'] },
      Targets: [{ Arn: arnOf(synth.service.webhooks.queue), Id: 'Target0' }],
    });
  });

  it('has an encrypted queue with a dead-letter queue after 5 receives, and a visibility timeout over the function timeout', () => {
    synth.template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 360,
      RedrivePolicy: { deadLetterTargetArn: arnOf(synth.service.webhooks.deadLetterQueue), maxReceiveCount: 5 },
    });
    const fn = synth.template.findResources('AWS::Lambda::Function')[logicalId(synth.stack, synth.service.functions.delivery)];
    expect(fn!.Properties.Timeout).toBe(60);
    expect(fn!.Properties.Runtime).toBe('nodejs22.x');
  });

  it('feeds the delivery function from the queue in batches of 10, reporting failed messages one by one', () => {
    synth.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: ref(synth.service.functions.delivery),
      EventSourceArn: arnOf(synth.service.webhooks.queue),
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('alarms on the service topic as soon as a message reaches the dead-letter queue', () => {
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(synth.stack, synth.service.webhooks.deadLetterQueue), 'QueueName'] } }],
      Threshold: 1,
      AlarmActions: [ref(synth.service.alarmTopic)],
    });
  });

  it('tells the delivery and webhook functions the queue, and lets them send to it and nothing more of SQS', () => {
    for (const fn of [synth.service.functions.delivery, synth.service.functions.webhook]) {
      const resource = synth.template.findResources('AWS::Lambda::Function')[logicalId(synth.stack, fn)];
      expect(resource!.Properties.Environment.Variables).toMatchObject({ WEBHOOK_QUEUE_URL: ref(synth.service.webhooks.queue), SIGNING_KMS_KEY_ID: arnOf(synth.service.signingKey) });
      const sends = statementsOf(fn.role).filter((statement) => actions(statement).some((action) => action.startsWith('sqs:Send')));
      expect(sends).toEqual([expect.objectContaining({ Action: 'sqs:SendMessage', Resource: arnOf(synth.service.webhooks.queue) })]);
    }
  });

  it('grants the delivery function the endpoints\' partitions only, decrypting and no encrypting, and the routes encrypting only', () => {
    const delivery = statementsOf(synth.service.functions.delivery.role);
    const tableGrants = delivery.filter((statement) => actions(statement).some((action) => action.startsWith('dynamodb:') && !/Stream|Shard/.test(action)));
    expect(JSON.stringify(tableGrants.map((statement) => statement.Condition))).not.toMatch(/"APP#\*"|"LIC#\*"/);
    expect(delivery.flatMap(actions).filter((action) => action.startsWith('kms:'))).toEqual(['kms:Decrypt']);
    expect(statementsOf(synth.service.functions.webhook.role).flatMap(actions).filter((action) => action.startsWith('kms:'))).toEqual(['kms:Encrypt']);
  });
});
