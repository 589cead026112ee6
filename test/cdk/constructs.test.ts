import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { FunctionName } from '../../functions/routes';
import { inboundRoutes, needsApiKey, routes, sideOf } from '../../functions/routes';
import { ServiceApi } from '../../lib/api';
import { ClientHttpApi } from '../../lib/client-api';
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
    expect(custom).toHaveLength(routes.filter(needsApiKey).length);
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

describe('ClientHttpApi', () => {
  const stack = bareStack();
  const client = standIns(stack).client;
  const context: Record<string, string> = { stage: 'test', clientRateLimit: '7', clientBurstLimit: '9', logRetentionDays: '14' };
  const clientApi = new ClientHttpApi(stack, 'ClientApi', { settings: readSettings((key) => context[key]), client });
  const template = Template.fromStack(stack);
  const idOf = (construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as never);
  const clientPaths = routes.filter((route) => sideOf(route.group) === 'client').map((route) => route.path);
  /** A joined ARN with each reference written `<logical id>`. */
  const joined = (value: { 'Fn::Join': [string, (string | { Ref: string })[]] }) =>
    value['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : `<${part.Ref}>`)).join('');

  it('serves POST and OPTIONS of every client route of the route table, and nothing else', () => {
    const keys = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map((route) => route.Properties.RouteKey as string);
    expect(keys.sort()).toEqual(clientPaths.flatMap((path) => [`POST ${path}`, `OPTIONS ${path}`]).sort());
  });

  it('hands every request to the client function as the REST proxy event (payload format 1.0), its headers and body untouched both ways', () => {
    const integrations = Object.entries(template.findResources('AWS::ApiGatewayV2::Integration'));
    expect(integrations).toHaveLength(1);
    const [integrationId, integration] = integrations[0]!;
    // No parameter mapping (request or response) and no CORS configuration, which would replace the function's CORS headers.
    expect(integration.Properties).toEqual({
      ApiId: { Ref: idOf(clientApi.api) },
      IntegrationType: 'AWS_PROXY',
      IntegrationUri: { 'Fn::GetAtt': [idOf(client), 'Arn'] },
      PayloadFormatVersion: '1.0',
    });
    expect(template.findResources('AWS::ApiGatewayV2::Api')[idOf(clientApi.api)]!.Properties).toEqual({
      Name: 'licensing-test-client',
      Description: 'Software licensing service: the client routes',
      ProtocolType: 'HTTP',
    });
    for (const route of Object.values(template.findResources('AWS::ApiGatewayV2::Route'))) {
      expect(route.Properties).toMatchObject({ AuthorizationType: 'NONE', Target: { 'Fn::Join': ['', ['integrations/', { Ref: integrationId }]] } });
    }
  });

  it('lets API Gateway invoke the client function for exactly these routes and methods, on its stage only', () => {
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission')).map((permission) => permission.Properties);
    for (const permission of permissions) {
      expect(permission).toMatchObject({ Action: 'lambda:InvokeFunction', Principal: 'apigateway.amazonaws.com', FunctionName: { 'Fn::GetAtt': [idOf(client), 'Arn'] } });
    }
    const arn = (method: string, path: string) => `arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${idOf(clientApi.api)}>/test/${method}${path}`;
    expect(permissions.map((permission) => joined(permission.SourceArn)).sort()).toEqual(clientPaths.flatMap((path) => [arn('POST', path), arn('OPTIONS', path)]).sort());
  });

  it('deploys a stage named like the REST one, each route throttled at the client rates, every request logged in JSON without its body', () => {
    const stage = template.findResources('AWS::ApiGatewayV2::Stage')[idOf(clientApi.stage)]!.Properties;
    expect(stage).toMatchObject({ StageName: 'test', AutoDeploy: true, DefaultRouteSettings: { ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 } });
    const logGroup = Object.entries(template.findResources('AWS::Logs::LogGroup'));
    expect(logGroup).toHaveLength(1);
    expect(logGroup[0]![1].Properties).toEqual({ RetentionInDays: 14 });
    expect(stage.AccessLogSettings.DestinationArn).toEqual({ 'Fn::GetAtt': [logGroup[0]![0], 'Arn'] });
    const format = JSON.parse(stage.AccessLogSettings.Format as string) as Record<string, string>;
    expect(format).toMatchObject({ requestId: '$context.requestId', ip: '$context.identity.sourceIp', routeKey: '$context.routeKey', status: '$context.status' });
    expect(Object.values(format).some((variable) => /body|requestOverride|authorizer/i.test(variable))).toBe(false);
    expect(clientApi.url).toMatch(/\/test\/$/);
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
  function monitored(alarmEmail: string | undefined, options: { httpApi?: boolean } = {}) {
    const stack = bareStack();
    const data = new ServiceData(stack, 'Data');
    const functions = standIns(stack);
    const api = new ServiceApi(stack, 'Api', { settings: readSettings(() => undefined), functions, managementCorsOrigin: '*' });
    const clientApi = options.httpApi ? new ClientHttpApi(stack, 'ClientApi', { settings: readSettings(() => undefined), client: functions.client }) : undefined;
    const events = new EventsPipeline(stack, 'Events', { stage: 'test', table: data.table, consumer: functions.events, auditRetentionDays: 7 });
    const monitoring = new Monitoring(stack, 'Monitoring', {
      stage: 'test',
      alarmEmail,
      apiStage: api.api.deploymentStage,
      clientApiStage: clientApi?.stage,
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

  it('watches the 5xx rate of the HTTP API\'s stage too when it serves the client routes', () => {
    const { stack, monitoring, template } = monitored(undefined, { httpApi: true });
    expect(Object.values(template.findResources('AWS::CloudWatch::Alarm'))).toHaveLength(2 * functionNames.length + 4);
    const [api] = Object.keys(template.findResources('AWS::ApiGatewayV2::Api'));
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/ApiGateway',
      MetricName: '5xx',
      Statistic: 'Average',
      Dimensions: Match.arrayWith([{ Name: 'ApiId', Value: { Ref: api } }, { Name: 'Stage', Value: 'prod' }]),
      Threshold: 0.01,
      AlarmActions: [{ Ref: stack.getLogicalId(monitoring.alarmTopic.node.defaultChild as never) }],
    });
  });

  it('subscribes the alarm email when one is set', () => {
    monitored('ops@example.com').template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
  });
});

describe('LicensingService props', () => {
  it('resolve like the same CDK context, defaults included', () => {
    const context: Record<string, string> = { stage: 'staging', enableWaf: 'true', lambdaMemoryMb: '1024', logLevel: 'warn', clientApi: 'http' };
    expect(settingsFromProps({ stage: 'staging', enableWaf: true, lambdaMemoryMb: 1024, logLevel: 'warn', clientApi: 'http' })).toEqual(readSettings((key) => context[key]));
  });

  it('are checked by the same rules, and an error names the prop', () => {
    expect(() => settingsFromProps({ bcryptCost: 3 })).toThrow(new SettingsError('LicensingService prop bcryptCost must be an integer from 4 to 15, got "3"'));
    expect(() => settingsFromProps({ stage: 'my_stage' })).toThrow(/^LicensingService prop stage must be 1 to 64 letters, digits or "-"/);
  });
});
