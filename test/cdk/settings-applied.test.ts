import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { rateLimitedBody } from '../../lib/gateway-responses';
import { logicalId, synthesize, type Synthesized } from './stack-fixture';

let synth: Synthesized;

beforeAll(() => {
  synth = synthesize(
    {
      stage: 'staging',
      endpointType: 'regional',
      clientRateLimit: '7',
      clientBurstLimit: '9',
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
      enableWaf: 'true',
      wafRateLimitPerIp: '300',
      alarmEmail: 'ops@example.com',
      tracing: 'false',
    },
    { bundle: false },
  );
});

describe('a stack synthesized with every context key set', () => {
  it('names the stage and the stack after the stage setting', () => {
    expect(synth.stack.stackName).toBe('Licensing-staging');
    synth.template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'staging' });
    synth.template.hasResourceProperties('AWS::ApiGateway::RestApi', { EndpointConfiguration: { Types: ['REGIONAL'] } });
  });

  it('applies the client and owner rates', () => {
    synth.template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([
        Match.objectLike({ ResourcePath: '/~1auth', ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 }),
        Match.objectLike({ ResourcePath: '/~1register', ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 }),
      ]),
    });
    synth.template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      Throttle: { RateLimit: 3, BurstLimit: 4 },
      Quota: { Limit: 5000, Period: 'DAY' },
    });
    synth.template.hasResourceProperties('AWS::ApiGateway::Authorizer', { AuthorizerResultTtlInSeconds: 0 });
  });

  it('passes the runtime settings to every function', () => {
    const functions = Object.values(synth.template.findResources('AWS::Lambda::Function'));
    expect(functions).toHaveLength(6);
    for (const fn of functions) {
      expect(fn.Properties).toMatchObject({
        MemorySize: 1024,
        Environment: { Variables: { BCRYPT_COST: '12', LOG_LEVEL: 'debug', CACHE_TTL_SECONDS: '0', DEBUG: 'true', TRACING: 'false' } },
      });
    }
    for (const group of Object.values(synth.template.findResources('AWS::Logs::LogGroup'))) {
      expect(group.Properties.RetentionInDays).toBe(90);
    }
  });

  it('leaves X-Ray off on the functions and the stage, and grants no X-Ray writes', () => {
    for (const fn of Object.values(synth.template.findResources('AWS::Lambda::Function'))) {
      expect(fn.Properties.TracingConfig).toBeUndefined();
    }
    synth.template.hasResourceProperties('AWS::ApiGateway::Stage', { TracingEnabled: false });
    expect(JSON.stringify(synth.template.findResources('AWS::IAM::Policy'))).not.toContain('xray:');
  });

  it('puts a web ACL with a per-IP rate rule answering RATE_LIMITED in front of the stage', () => {
    synth.template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      Rules: [
        Match.objectLike({
          Statement: { RateBasedStatement: { Limit: 300, AggregateKeyType: 'IP' } },
          Action: { Block: { CustomResponse: Match.objectLike({ ResponseCode: 429, CustomResponseBodyKey: 'rateLimited' }) } },
        }),
      ],
      CustomResponseBodies: { rateLimited: { ContentType: 'APPLICATION_JSON', Content: JSON.stringify(rateLimitedBody) } },
    });
    const acl = logicalId(synth.stack, synth.stack.node.findChild('WebAcl'));
    const stage = logicalId(synth.stack, synth.stack.api.deploymentStage);
    const associations = Object.values(synth.template.findResources('AWS::WAFv2::WebACLAssociation'));
    expect(associations).toHaveLength(1);
    expect(associations[0]!.Properties.WebACLArn).toEqual({ 'Fn::GetAtt': [acl, 'Arn'] });
    expect(JSON.stringify(associations[0]!.Properties.ResourceArn)).toContain(`{"Ref":"${stage}"}`);
  });

  it('mails alarms to the configured address', () => {
    synth.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: { Ref: logicalId(synth.stack, synth.stack.alarmTopic) },
    });
  });

  it('passes cdk-nag with the web ACL in place of its acknowledgment', () => {
    const report = new AwsSolutionsChecks().validateScope(synth.stack);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
  });
});
