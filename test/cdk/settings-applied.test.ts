import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readConfig } from '#core/config';
import type { Deps } from '#core/deps';
import { createLogger } from '#core/logger';
import { authorize } from '../../functions/authorizer/handler';
import { routes, sideOf } from '../../functions/routes';
import { functionNames } from '../../lib/functions';
import { rateLimitedBody } from '../../lib/gateway-responses';
import { logicalId, serviceResources, synthesize, type Synthesized } from './stack-fixture';

let synth: Synthesized;
const clientPaths = routes.filter((route) => sideOf(route.group) === 'client').map((route) => route.path);

beforeAll(() => {
  synth = synthesize(
    {
      stage: 'staging',
      endpointType: 'regional',
      clientApi: 'http',
      clientRateLimit: '7',
      clientBurstLimit: '9',
      stripeWebhookRateLimit: '6',
      stripeWebhookBurstLimit: '8',
      managementRateLimit: '3',
      managementBurstLimit: '4',
      managementQuotaPerDay: '5000',
      authorizerCacheTtlSeconds: '0',
      bcryptCost: '12',
      logLevel: 'debug',
      cacheTtlSeconds: '0',
      debug: 'true',
      lambdaMemoryMb: '1024',
      logRetentionDays: '90',
      executionLogRetentionDays: '365',
      enableWaf: 'true',
      wafRateLimitPerIp: '300',
      wafClientRateLimitPerIp: '60',
      authorizerReservedConcurrency: '20',
      clientReservedConcurrency: '50',
      managementReservedConcurrency: '10',
      alarmEmail: 'ops@example.com',
      tracing: 'false',
      tracingSampleRate: '0.2',
      auditRetentionDays: '30',
    },
    { bundle: false },
  );
});

describe('a stack synthesized with every context key set', () => {
  it('names the stage and the stack after the stage setting', () => {
    expect(synth.stack.stackName).toBe('Licensing-staging');
    synth.template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'staging' });
    synth.template.hasResourceProperties('AWS::ApiGateway::RestApi', { EndpointConfiguration: { Types: ['REGIONAL'] } });
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', { StageName: 'staging' });
  });

  it('applies the client and owner rates', () => {
    synth.template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([
        Match.objectLike({ ResourcePath: '/~1auth', ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 }),
        Match.objectLike({ ResourcePath: '/~1register', ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 }),
        Match.objectLike({ ResourcePath: '/~1stripe~1webhook~1{app_id}', ThrottlingRateLimit: 6, ThrottlingBurstLimit: 8 }),
      ]),
    });
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', { DefaultRouteSettings: { ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 } });
    synth.template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      Throttle: { RateLimit: 3, BurstLimit: 4 },
      Quota: { Limit: 5000, Period: 'DAY' },
    });
    synth.template.hasResourceProperties('AWS::ApiGateway::Authorizer', { AuthorizerResultTtlInSeconds: 0 });
  });

  it('passes the runtime settings to every function', () => {
    const functions = Object.values(serviceResources(synth.template, 'AWS::Lambda::Function'));
    expect(functions).toHaveLength(functionNames.length);
    for (const fn of functions) {
      expect(fn.Properties).toMatchObject({
        MemorySize: 1024,
        // At debug, stack traces are source-mapped where they are logged (docs/operations.md#reading-a-stack-trace).
        Environment: {
          Variables: { BCRYPT_COST: '12', LOG_LEVEL: 'debug', CACHE_TTL_SECONDS: '0', DEBUG: 'true', TRUSTED_VIEWER_HEADERS: '', TRACING: 'false', NODE_OPTIONS: '--enable-source-maps' },
        },
        // At debug Lambda's start and report lines are kept too.
        LoggingConfig: { LogFormat: 'JSON', ApplicationLogLevel: 'DEBUG', SystemLogLevel: 'INFO' },
      });
    }
    for (const group of Object.values(synth.template.findResources('AWS::Logs::LogGroup'))) {
      expect(group.Properties.RetentionInDays).toBe(90);
    }
    synth.template.hasResourceProperties('Custom::LogRetention', { LogGroupName: Match.objectLike({}), RetentionInDays: 365 });
    const consumer = synth.template.findResources('AWS::Lambda::Function')[logicalId(synth.stack, synth.service.functions.events)];
    expect(consumer!.Properties.Environment.Variables.AUDIT_RETENTION_DAYS).toBe('30');
  });

  it('leaves X-Ray off on the functions and the stage, makes no sampling rule, and grants no X-Ray writes', () => {
    for (const fn of Object.values(serviceResources(synth.template, 'AWS::Lambda::Function'))) {
      expect(fn.Properties.TracingConfig).toBeUndefined();
    }
    synth.template.hasResourceProperties('AWS::ApiGateway::Stage', { TracingEnabled: false });
    synth.template.resourceCountIs('AWS::XRay::SamplingRule', 0);
    expect(JSON.stringify(serviceResources(synth.template, 'AWS::IAM::Policy'))).not.toContain('xray:');
  });

  it('reserves the configured concurrency for the authorizer, the client function and each management function', () => {
    const reserved = Object.fromEntries(
      Object.entries(synth.service.functions).map(([name, fn]) => [
        name,
        synth.template.findResources('AWS::Lambda::Function')[logicalId(synth.stack, fn)]!.Properties.ReservedConcurrentExecutions,
      ]),
    );
    // The events consumer's concurrency is one per stream shard, set by the event source mapping, not reserved.
    expect(reserved).toEqual({ client: 50, license: 10, hwid: 10, subscription: 10, blacklist: 10, app: 10, webhook: 10, integration: 10, portal: 10, authorizer: 20, events: undefined, openapi: undefined, delivery: undefined });
  });

  it('puts a web ACL with a per-IP rate rule and a tighter one on the client routes, both answering RATE_LIMITED, in front of the stage', () => {
    const limited = { Block: { CustomResponse: Match.objectLike({ ResponseCode: 429, CustomResponseBodyKey: 'rateLimited' }) } };
    synth.template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      Rules: [
        Match.objectLike({ Name: 'RateLimitPerIp', Statement: { RateBasedStatement: { Limit: 300, AggregateKeyType: 'IP' } }, Action: limited }),
        Match.objectLike({
          Name: 'RateLimitClientRoutesPerIp',
          Statement: {
            RateBasedStatement: {
              Limit: 60,
              AggregateKeyType: 'IP',
              ScopeDownStatement: {
                OrStatement: {
                  Statements: clientPaths.map((path) => ({
                    ByteMatchStatement: Match.objectLike({ FieldToMatch: { UriPath: {} }, PositionalConstraint: 'ENDS_WITH', SearchString: path }),
                  })),
                },
              },
            },
          },
          Action: limited,
        }),
      ],
      CustomResponseBodies: { rateLimited: { ContentType: 'APPLICATION_JSON', Content: JSON.stringify(rateLimitedBody) } },
    });
    const acl = logicalId(synth.stack, synth.service.firewall?.webAcl);
    const stage = logicalId(synth.stack, synth.service.api.deploymentStage);
    const associations = Object.values(synth.template.findResources('AWS::WAFv2::WebACLAssociation'));
    expect(associations).toHaveLength(1);
    expect(associations[0]!.Properties.WebACLArn).toEqual({ 'Fn::GetAtt': [acl, 'Arn'] });
    expect(JSON.stringify(associations[0]!.Properties.ResourceArn)).toContain(`{"Ref":"${stage}"}`);
  });

  it('mails alarms to the configured address', () => {
    synth.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: { Ref: logicalId(synth.stack, synth.service.alarmTopic) },
    });
  });

  it('passes cdk-nag with the web ACL in place of its acknowledgment', () => {
    const report = new AwsSolutionsChecks().validateScope(synth.stack);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
  });
});

describe('the logLevel setting, from CDK context to what a function logs', () => {
  async function deniedKeyLogLines(context: Record<string, unknown>): Promise<string[]> {
    const { stack, service, template } = synthesize(context, { bundle: false });
    const fn = template.findResources('AWS::Lambda::Function')[logicalId(stack, service.functions.authorizer)]!;
    const config = readConfig(fn.Properties.Environment.Variables as Record<string, string>);
    const lines: string[] = [];
    const deps = { logger: createLogger(config.logLevel, {}, (line) => lines.push(line)), table: {} } as unknown as Pick<Deps, 'table' | 'logger'>;
    await authorize(deps, { type: 'REQUEST', methodArn: 'arn:aws:execute-api:r:a:id/prod/POST/license/get', headers: { 'x-api-key': 'not-a-key' } } as never);
    expect(fn.Properties.LoggingConfig.ApplicationLogLevel).toBe(String(context.logLevel ?? 'info').toUpperCase());
    return lines;
  }

  it('lets Lambda and the service logger keep debug lines at debug, and drop them at the default info', async () => {
    const atDebug = await deniedKeyLogLines({ logLevel: 'debug' });
    expect(atDebug.map((line) => JSON.parse(line))).toEqual([expect.objectContaining({ level: 'debug', message: 'api key denied' })]);
    expect(atDebug.join('')).not.toContain('not-a-key');
    expect(await deniedKeyLogLines({})).toEqual([]);
  });
});

describe('a regional stage behind the owner\'s own CloudFront', () => {
  const secret = 'S3cret-origin-value-0123456789abcdef';
  let behind: Synthesized;
  beforeAll(() => {
    behind = synthesize({ endpointType: 'regional', cloudFrontOriginSecret: secret }, { bundle: false });
  });

  it('refuses, in a web ACL, every request that does not carry the secret only the distribution adds', () => {
    behind.template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Rules: [
        Match.objectLike({
          Name: 'RequireCloudFrontOrigin',
          Statement: {
            NotStatement: {
              Statement: {
                ByteMatchStatement: Match.objectLike({ FieldToMatch: { SingleHeader: { Name: 'x-origin-verify' } }, PositionalConstraint: 'EXACTLY', SearchString: secret }),
              },
            },
          },
          Action: { Block: {} },
        }),
      ],
    });
    behind.template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 1);
  });

  it('then trusts the country and ASN headers that distribution sets', () => {
    for (const fn of Object.values(serviceResources(behind.template, 'AWS::Lambda::Function'))) {
      expect(fn.Properties.Environment.Variables.TRUSTED_VIEWER_HEADERS).toBe('country,asn');
    }
  });
});

describe('a regional stage without CloudFront', () => {
  it('trusts no viewer header and adds no web ACL of its own', () => {
    const { template } = synthesize({ endpointType: 'regional' }, { bundle: false });
    for (const fn of Object.values(serviceResources(template, 'AWS::Lambda::Function'))) {
      expect(fn.Properties.Environment.Variables.TRUSTED_VIEWER_HEADERS).toBe('');
    }
    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
  });
});

describe('the tracingSampleRate setting', () => {
  it("becomes the fixed rate of the stage's sampling rule", () => {
    const { template } = synthesize({ tracingSampleRate: '0.05' }, { bundle: false });
    template.hasResourceProperties('AWS::XRay::SamplingRule', { SamplingRule: Match.objectLike({ FixedRate: 0.05, ReservoirSize: 0 }) });
  });
});
