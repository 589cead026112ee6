import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { FunctionName } from '../../functions/routes';
import { inboundRoutes, routes } from '../../functions/routes';
import { ServiceApi } from '../../lib/api';
import { ServiceData } from '../../lib/data';
import { EventsPipeline } from '../../lib/events';
import { Firewall } from '../../lib/firewall';
import { functionNames } from '../../lib/functions';
import { Monitoring } from '../../lib/monitoring';
import { readSettings, SettingsError, settingsFromProps } from '../../lib/settings';

/** Each construct of the service on its own, in a bare stack, with stand-in functions where it needs some. */
function bareStack(): Stack {
  return new Stack(new App(), 'Bare');
}

function standIns(stack: Stack): Record<FunctionName, lambda.Function> {
  const make = (name: FunctionName) =>
    new lambda.Function(stack, `${name}StandIn`, { runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => {}') });
  return Object.fromEntries(functionNames.map((name) => [name, make(name)])) as Record<FunctionName, lambda.Function>;
}

describe('Firewall', () => {
  const settings = (context: Record<string, string>) => readSettings((key) => context[key]);

  it('is wanted for the WAF or the CloudFront origin secret, not otherwise', () => {
    expect(Firewall.wanted(settings({}))).toBe(false);
    expect(Firewall.wanted(settings({ enableWaf: 'true' }))).toBe(true);
    expect(Firewall.wanted(settings({ endpointType: 'regional', cloudFrontOriginSecret: 's'.repeat(40) }))).toBe(true);
  });

  it.each([
    [{ endpointType: 'regional', cloudFrontOriginSecret: 's'.repeat(40) }, ['RequireCloudFrontOrigin']],
    [{ enableWaf: 'true' }, ['RateLimitPerIp', 'RateLimitClientRoutesPerIp']],
    [{ endpointType: 'regional', cloudFrontOriginSecret: 's'.repeat(40), enableWaf: 'true' }, ['RequireCloudFrontOrigin', 'RateLimitPerIp', 'RateLimitClientRoutesPerIp']],
  ])('with %o has the rules %o, in priority order', (context, names) => {
    const stack = bareStack();
    const api = new ServiceApi(stack, 'Api', { settings: settings(context), functions: standIns(stack), managementCorsOrigin: '*' });
    new Firewall(stack, 'Firewall', { settings: settings(context), stage: api.api.deploymentStage });
    const [acl] = Object.values(Template.fromStack(stack).findResources('AWS::WAFv2::WebACL'));
    const rules = acl!.Properties.Rules as { Name: string; Priority: number }[];
    expect(rules.map((rule) => rule.Name)).toEqual(names);
    expect(rules.map((rule) => rule.Priority)).toEqual(names.map((_, index) => index));
  });
});

describe('ServiceApi', () => {
  const stack = bareStack();
  const functions = standIns(stack);
  new ServiceApi(stack, 'Api', { settings: readSettings(() => undefined), functions, managementCorsOrigin: 'https://admin.example.com' });
  const template = Template.fromStack(stack);
  const methods = Object.values(template.findResources('AWS::ApiGateway::Method')).map((method) => method.Properties);

  it('makes a POST per route and per inbound route, an OPTIONS per route, and GET /openapi.json', () => {
    expect(methods.filter((method) => method.HttpMethod === 'POST')).toHaveLength(routes.length + inboundRoutes.length);
    expect(methods.filter((method) => method.HttpMethod === 'OPTIONS')).toHaveLength(routes.length);
    expect(methods.filter((method) => method.HttpMethod === 'GET')).toHaveLength(1);
  });

  it('puts the authorizer and the API key on the management routes only', () => {
    const posts = methods.filter((method) => method.HttpMethod === 'POST');
    const custom = posts.filter((method) => method.AuthorizationType === 'CUSTOM');
    expect(custom).toHaveLength(routes.filter((route) => route.group !== 'client').length);
    for (const method of custom) expect(method.ApiKeyRequired).toBe(true);
  });

  it('answers management preflights with the configured origin', () => {
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'OPTIONS',
      Integration: Match.objectLike({
        IntegrationResponses: [Match.objectLike({ ResponseParameters: Match.objectLike({ 'method.response.header.Access-Control-Allow-Origin': "'https://admin.example.com'" }) })],
      }),
    });
  });
});

describe('EventsPipeline', () => {
  const stack = bareStack();
  const data = new ServiceData(stack, 'Data');
  const consumer = standIns(stack).events;
  const pipeline = new EventsPipeline(stack, 'Events', { stage: 'test', table: data.table, consumer, auditRetentionDays: 7 });
  const template = Template.fromStack(stack);

  it('tells the consumer its bus, its dead-letter queue and the audit retention', () => {
    const fn = template.findResources('AWS::Lambda::Function', { Properties: { Environment: { Variables: { AUDIT_RETENTION_DAYS: '7' } } } });
    expect(Object.keys(fn)).toEqual([stack.getLogicalId(consumer.node.defaultChild as lambda.CfnFunction)]);
    template.hasResourceProperties('AWS::Events::EventBus', { Name: 'licensing-test' });
    expect(pipeline.deadLetterQueue).toBeDefined();
  });

  it('reads the stream with failures reported per record, dead-lettered after the retries', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [stack.getLogicalId(pipeline.deadLetterQueue.node.defaultChild as never), 'Arn'] } } },
    });
  });
});

describe('Monitoring', () => {
  function monitored(alarmEmail: string | undefined) {
    const stack = bareStack();
    const data = new ServiceData(stack, 'Data');
    const functions = standIns(stack);
    const api = new ServiceApi(stack, 'Api', { settings: readSettings(() => undefined), functions, managementCorsOrigin: '*' });
    const events = new EventsPipeline(stack, 'Events', { stage: 'test', table: data.table, consumer: functions.events, auditRetentionDays: 7 });
    const monitoring = new Monitoring(stack, 'Monitoring', {
      stage: 'test',
      alarmEmail,
      apiStage: api.api.deploymentStage,
      functions,
      table: data.table,
      deadLetterQueue: events.deadLetterQueue,
    });
    return { stack, monitoring, template: Template.fromStack(stack) };
  }

  it('alarms on errors and throttles of every function, the API, the table and the dead letters, all to the topic', () => {
    const { stack, monitoring, template } = monitored(undefined);
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(2 * functionNames.length + 3);
    const topic = stack.getLogicalId(monitoring.alarmTopic.node.defaultChild as never);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topic }]);
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('subscribes the alarm email when one is set', () => {
    monitored('ops@example.com').template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
  });
});

describe('LicensingService props', () => {
  it('resolve like the same CDK context, defaults included', () => {
    const context: Record<string, string> = { stage: 'staging', enableWaf: 'true', lambdaMemoryMb: '1024', logLevel: 'warn' };
    expect(settingsFromProps({ stage: 'staging', enableWaf: true, lambdaMemoryMb: 1024, logLevel: 'warn' })).toEqual(readSettings((key) => context[key]));
  });

  it('are checked by the same rules, and an error names the prop', () => {
    expect(() => settingsFromProps({ bcryptCost: 3 })).toThrow(new SettingsError('LicensingService prop bcryptCost must be an integer from 4 to 15, got "3"'));
    expect(() => settingsFromProps({ stage: 'my_stage' })).toThrow(/^LicensingService prop stage must be 1 to 64 letters, digits or "-"/);
  });
});
