import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { invokePermissionFindings } from '../support/iam-conformance';
import { functionNames } from '../../lib/functions';
import { logicalId, serviceResources, statementsOfRole, synthesize, type Synthesized } from './stack-fixture';

/**
 * The clientApi setting across the whole stack (its construct alone: test/cdk/constructs.test.ts).
 * Template only: no bundling.
 */
let unset: Synthesized;
let rest: Synthesized;
let http: Synthesized;

// Three syntheses of the whole stack: the bound leaves room for a busy machine.
beforeAll(() => {
  unset = synthesize({}, { bundle: false });
  rest = synthesize({ clientApi: 'rest' }, { bundle: false });
  http = synthesize({ clientApi: 'http' }, { bundle: false });
}, 120_000);

type Resources = Record<string, { Type: string; Properties?: Record<string, any> }>;
const resourcesOf = (synth: Synthesized) => synth.template.toJSON().Resources as Resources;

/**
 * What clientApi=http may change in a resource of the REST stack: every function's trusted viewer headers,
 * and the client function's tracing with its role's X-Ray grant. Those taken out, the rest must be equal.
 */
function withoutExpectedChanges(synth: Synthesized): Resources {
  const resources = structuredClone(resourcesOf(synth));
  const clientFunction = logicalId(synth.stack, synth.service.functions.client);
  const clientRole = logicalId(synth.stack, synth.service.functions.client.role);
  for (const [id, resource] of Object.entries(resources)) {
    if (resource.Type === 'AWS::Lambda::Function' && resource.Properties?.Environment?.Variables) delete resource.Properties.Environment.Variables.TRUSTED_VIEWER_HEADERS;
    if (id === clientFunction) {
      delete resource.Properties!.Environment.Variables.TRACING;
      delete resource.Properties!.TracingConfig;
    }
    if (resource.Type === 'AWS::IAM::Policy' && resource.Properties!.Roles.some((role: { Ref?: string }) => role.Ref === clientRole)) {
      const document = resource.Properties!.PolicyDocument;
      document.Statement = document.Statement.filter((statement: { Action: string | string[] }) => ![statement.Action].flat().some((action) => action.startsWith('xray:')));
    }
  }
  return resources;
}

describe('clientApi=rest, the default', () => {
  it('makes the very template of a stack without the setting: no HTTP API, no new output, every logical id kept', () => {
    expect(rest.template.toJSON()).toEqual(unset.template.toJSON());
    expect(Object.values(resourcesOf(rest)).filter((resource) => resource.Type.startsWith('AWS::ApiGatewayV2::'))).toEqual([]);
    expect(rest.service.clientHttpApi).toBeUndefined();
  });
});

describe('clientApi=http', () => {
  it('keeps every resource of the REST stack under its logical id, changing only the viewer headers and the client function\'s tracing', () => {
    const before = withoutExpectedChanges(rest);
    const after = withoutExpectedChanges(http);
    expect(Object.fromEntries(Object.keys(before).map((id) => [id, after[id]]))).toEqual(before);
  });

  it('adds the HTTP API, its routes, stage, access logs, invoke permissions and 5xx alarm, and nothing else', () => {
    const added = Object.entries(resourcesOf(http)).filter(([id]) => !(id in resourcesOf(rest)));
    const types = [...new Set(added.map(([, resource]) => resource.Type))].sort();
    expect(types).toEqual([
      'AWS::ApiGatewayV2::Api',
      'AWS::ApiGatewayV2::Integration',
      'AWS::ApiGatewayV2::Route',
      'AWS::ApiGatewayV2::Stage',
      'AWS::CloudWatch::Alarm',
      'AWS::Lambda::Permission',
      'AWS::Logs::LogGroup',
    ]);
    const alarms = added.filter(([, resource]) => resource.Type === 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties!);
    expect(alarms).toEqual([
      expect.objectContaining({ MetricName: '5xx', Statistic: 'Average', Threshold: 0.01, AlarmActions: [{ Ref: logicalId(http.stack, http.service.alarmTopic) }] }),
    ]);
  });

  it('outputs the HTTP API stage\'s URL as ClientApiUrl, beside the REST API\'s ApiUrl', () => {
    const outputs = http.template.toJSON().Outputs as Record<string, { Value: { 'Fn::Join': [string, unknown[]] } }>;
    expect(Object.keys(outputs).sort()).toEqual([...Object.keys(rest.template.toJSON().Outputs), 'ClientApiUrl'].sort());
    const url = outputs.ClientApiUrl!.Value;
    expect(http.stack.resolve(http.service.clientHttpApi!.url)).toEqual(url);
    expect(url['Fn::Join'][1]).toEqual(expect.arrayContaining([{ Ref: logicalId(http.stack, http.service.clientHttpApi!.api) }]));
    expect(url['Fn::Join'][1].at(-1)).toBe('/prod/');
  });

  it('traces every function but the client one, whose role may write no traces: an HTTP API makes no sampling decision', () => {
    const functions = serviceResources(http.template, 'AWS::Lambda::Function');
    for (const name of functionNames) {
      const fn = functions[logicalId(http.stack, http.service.functions[name])]!;
      const xray = statementsOfRole(http, http.service.functions[name].role).filter((statement) => [statement.Action].flat().some((action) => action.startsWith('xray:')));
      if (name === 'client') {
        expect(fn.Properties.TracingConfig).toBeUndefined();
        expect(fn.Properties.Environment.Variables.TRACING).toBe('false');
        expect(xray).toEqual([]);
      } else {
        expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
        expect(xray).toHaveLength(1);
      }
    }
  });

  it('trusts no CloudFront viewer header in any function', () => {
    for (const fn of Object.values(serviceResources(http.template, 'AWS::Lambda::Function'))) {
      expect(fn.Properties.Environment.Variables.TRUSTED_VIEWER_HEADERS).toBe('');
    }
  });

  it('lets API Gateway invoke each function for exactly the routes, stages and authorizers integrated with it, on either front door', () => {
    expect(invokePermissionFindings(rest.template)).toEqual([]);
    expect(invokePermissionFindings(http.template)).toEqual([]);
    // The check the IAM conformance run makes (test/after-run/iam-conformance.test.ts) sees a grant wider than a route, and a route without one.
    const widened = structuredClone(http.template.toJSON());
    const [id, permission] = Object.entries(widened.Resources as Resources).find(([, resource]) => JSON.stringify(resource.Properties?.SourceArn ?? '').includes('/prod/POST/auth'))!;
    permission.Properties!.SourceArn['Fn::Join'][1] = permission.Properties!.SourceArn['Fn::Join'][1].map((part: unknown) => (part === '/prod/POST/auth' ? '/*/*/auth' : part));
    const findings = invokePermissionFindings(Template.fromJSON(widened));
    expect(findings).toEqual([expect.stringMatching(/^granted but no route needs it: ClientFunction\w+ arn:aws:execute-api:.+\/\*\/\*\/auth$/), expect.stringMatching(/^needed but not granted: ClientFunction\w+ .+\/prod\/POST\/auth$/)]);
    expect(id).toBe('ClientHttpApiInvokePOSTAuth');
  });

  it('reports no unacknowledged AwsSolutions finding', () => {
    const report = new AwsSolutionsChecks().validateScope(http.stack);
    expect(report.violations.map((violation) => `${violation.ruleName} ${violation.violatingResources.map((resource) => resource.resourceLogicalId).join(', ')}`)).toEqual([]);
  });
});
