import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { groups, inboundRoutes, needsApiKey, openApiPath, routes, sideOf } from '../../functions/routes';
import { tableDefinition } from '../../functions/data/table';
import { corsHeaders } from '../../functions/core/http/middleware';
import { gatewayResponses } from '../../lib/gateway-responses';
import { leadingKeyPatterns, tableAccess } from '../../lib/permissions';
import { logicalId, methods, serviceResources, synthesize, type Synthesized } from './stack-fixture';

let synth: Synthesized;
// Inside the project (cdk.out is ignored by git) so the bundles resolve the external @aws-sdk/* from node_modules.
const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
let outdir: string;

beforeAll(() => {
  mkdirSync(path.join(projectRoot, 'cdk.out'), { recursive: true });
  outdir = mkdtempSync(path.join(projectRoot, 'cdk.out', 'jest-'));
  synth = synthesize({}, { outdir });
});

afterAll(() => {
  rmSync(outdir, { recursive: true, force: true });
});

const functionNames = [...groups, 'authorizer'] as const;

function bundleOf(name: (typeof functionNames)[number]): string {
  const fn = synth.template.findResources('AWS::Lambda::Function')[logicalId(synth.stack, synth.service.functions[name])];
  const key = (fn!.Properties.Code as { S3Key: string }).S3Key;
  return path.join(synth.app.outdir, `asset.${key.replace(/\.zip$/, '')}`);
}

/** Text each library leaves in a minified bundle, and nothing else in the functions that load it on first need does. */
const lazyLibraryMarkers = {
  bcryptjs: /Illegal number of rounds/,
  jose: /ERR_JWS_INVALID/,
  'KMS client': /TrentService/,
  'SQS client': /AmazonSQS/,
  stripe: /api\.stripe\.com/,
  'SES client': /SimpleEmailService_v2/,
};

/** What each function loads on first need only: a cold start that does not need it leaves it out. */
const loadedOnNeed: [(typeof functionNames)[number], (keyof typeof lazyLibraryMarkers)[]][] = [
  ['client', ['bcryptjs', 'jose', 'KMS client']],
  ['integration', ['stripe']],
  ['portal', ['SES client']],
  ['webhook', ['KMS client', 'SQS client']],
];

/** The text of index.mjs and of every chunk it imports statically: what Node reads and compiles before the handler exists. */
function staticGraph(dir: string): string[] {
  const seen = new Map<string, string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const text = readFileSync(file, 'utf8');
    seen.set(file, text);
    for (const [, specifier] of text.matchAll(/(?:^|[;}])import(?:[^"'()]*?from)?\s*["'](\.{1,2}\/[^"']+)["']/g)) visit(path.resolve(path.dirname(file), specifier!));
  };
  visit(path.join(dir, 'index.mjs'));
  return [...seen.values()];
}

type Statement = { Action: string | string[]; Resource: unknown; Effect: string; Condition?: Record<string, Record<string, string | string[]>> };

function leadingKeysOf(statement: Statement): string[] {
  const patterns = statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] ?? [];
  return Array.isArray(patterns) ? patterns : [patterns];
}

function statementsOfRole(roleId: string): Statement[] {
  const policies = synth.template.findResources('AWS::IAM::Policy', {
    Properties: { Roles: Match.arrayWith([{ Ref: roleId }]) },
  });
  return Object.values(policies).flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

function actionsOf(statement: Statement): string[] {
  return Array.isArray(statement.Action) ? statement.Action : [statement.Action];
}

describe('routes', () => {
  it('serves every route of the route table and every inbound route as POST, integrated with its group\'s function', () => {
    const posts = methods(synth.template).filter((method) => method.httpMethod === 'POST');
    expect(posts.map((method) => method.path).sort()).toEqual([...routes, ...inboundRoutes].map((route) => route.path).sort());
    for (const route of [...routes, ...inboundRoutes]) {
      const method = posts.find((candidate) => candidate.path === route.path)!;
      const integration = method.properties.Integration as { Type: string; IntegrationHttpMethod: string; Uri: unknown };
      expect(integration.Type).toBe('AWS_PROXY');
      expect(integration.IntegrationHttpMethod).toBe('POST');
      const functionId = logicalId(synth.stack, synth.service.functions[route.group]);
      expect(JSON.stringify(integration.Uri)).toContain(`"${functionId}"`);
    }
  });

  it('answers OPTIONS on every route from API Gateway with 204 and the documented CORS headers', () => {
    const preflights = methods(synth.template).filter((method) => method.httpMethod === 'OPTIONS');
    expect(preflights.map((method) => method.path).sort()).toEqual(routes.map((route) => route.path).sort());
    for (const route of routes) {
      const method = preflights.find((candidate) => candidate.path === route.path)!;
      expect(method.properties.AuthorizationType).toBe('NONE');
      expect(method.properties.ApiKeyRequired).not.toBe(true);
      const integration = method.properties.Integration as {
        Type: string;
        IntegrationResponses: { StatusCode: string; ResponseParameters: Record<string, string> }[];
      };
      expect(integration.Type).toBe('MOCK');
      const expected = Object.fromEntries(
        Object.entries(corsHeaders(sideOf(route.group), route.group === 'portal' ? '*' : synth.service.managementCorsOrigin)).map(([name, value]) => [`method.response.header.${name}`, synth.stack.resolve(`'${value}'`)]),
      );
      expect(integration.IntegrationResponses).toEqual([{ StatusCode: '204', ResponseParameters: expected }]);
    }
  });

  it('gives client preflights exactly the documented header values, plus the signature headers exposed', () => {
    expect(corsHeaders('client', 'https://dashboard.example.com')).toEqual({
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': 'POST, OPTIONS',
      'Access-Control-Allow-Headers': 'Content-Type, Authorization',
      'Access-Control-Max-Age': '86400',
      'Access-Control-Expose-Headers': 'Signature, Signature-Input, Content-Digest',
    });
  });

  it('answers GET /openapi.json from its own function, without the authorizer or an API key', () => {
    const gets = methods(synth.template).filter((method) => method.httpMethod === 'GET');
    expect(gets.map((method) => method.path)).toEqual([openApiPath]);
    const method = gets[0]!.properties;
    expect(method.AuthorizationType).toBe('NONE');
    expect(method.ApiKeyRequired).not.toBe(true);
    expect(JSON.stringify((method.Integration as { Uri: unknown }).Uri)).toContain(`"${logicalId(synth.stack, synth.service.functions.openapi)}"`);
  });

  it('defines no method besides POST and OPTIONS on the routes, POST on the inbound routes, and GET on the document', () => {
    expect(methods(synth.template)).toHaveLength(routes.length * 2 + inboundRoutes.length + 1);
  });

  it('leaves each inbound route without the authorizer and an API key, and gives it a throttle of its own on the stage', () => {
    for (const route of inboundRoutes) {
      const method = methods(synth.template).find((candidate) => candidate.httpMethod === 'POST' && candidate.path === route.path)!;
      expect(method.properties.AuthorizationType).toBe('NONE');
      expect(method.properties.ApiKeyRequired).not.toBe(true);
      expect(method.properties).not.toHaveProperty('AuthorizerId');
    }
    synth.template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([
        Match.objectLike({ HttpMethod: 'POST', ResourcePath: '/~1stripe~1webhook~1{app_id}', ThrottlingRateLimit: 25, ThrottlingBurstLimit: 50 }),
      ]),
    });
  });
});

describe('API key authorizer and usage plan', () => {
  it('puts every management route behind the authorizer with an API key required, and leaves client and customer portal routes open', () => {
    const authorizerId = logicalId(synth.stack, synth.service.authorizer);
    const posts = methods(synth.template).filter((method) => method.httpMethod === 'POST');
    for (const route of routes) {
      const method = posts.find((candidate) => candidate.path === route.path)!;
      if (needsApiKey(route)) {
        expect(method.properties).toMatchObject({ AuthorizationType: 'CUSTOM', AuthorizerId: { Ref: authorizerId }, ApiKeyRequired: true });
      } else {
        expect(method.properties.AuthorizationType).toBe('NONE');
        expect(method.properties.ApiKeyRequired).not.toBe(true);
      }
    }
  });

  it('runs the authorizer function as a REQUEST authorizer cached on the x-api-key header', () => {
    const authorizerFunction = logicalId(synth.stack, synth.service.functions.authorizer);
    synth.template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      IdentitySource: 'method.request.header.x-api-key',
      AuthorizerResultTtlInSeconds: 300,
    });
    const [authorizer] = Object.values(synth.template.findResources('AWS::ApiGateway::Authorizer'));
    expect(JSON.stringify(authorizer!.Properties.AuthorizerUri)).toContain(`"${authorizerFunction}"`);
  });

  it('meters usage plans by the key the authorizer returns', () => {
    synth.template.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
  });

  it('attaches the owner usage plan to the stage with the configured throttle', () => {
    const apiId = logicalId(synth.stack, synth.service.api);
    const stageId = logicalId(synth.stack, synth.service.api.deploymentStage);
    synth.template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      ApiStages: [Match.objectLike({ ApiId: { Ref: apiId }, Stage: { Ref: stageId } })],
      Throttle: { RateLimit: 100, BurstLimit: 500 },
      Quota: Match.absent(),
    });
  });

  it('throttles each client route on the stage', () => {
    synth.template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'prod',
      MethodSettings: Match.arrayWith([
        Match.objectLike({ HttpMethod: 'POST', ResourcePath: '/~1auth', ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 }),
        Match.objectLike({ HttpMethod: 'POST', ResourcePath: '/~1register', ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 }),
      ]),
    });
  });
});

describe('gateway responses', () => {
  const bodyOf = (type: string) => {
    const found = synth.template.findResources('AWS::ApiGateway::GatewayResponse', { Properties: { ResponseType: type } });
    const [response] = Object.values(found);
    return response!.Properties as { StatusCode?: string; ResponseTemplates?: Record<string, string>; ResponseParameters: Record<string, string> };
  };

  it('answers a missing API key with 401 MISSING_AUTH', () => {
    const response = bodyOf('UNAUTHORIZED');
    expect(response.StatusCode).toBe('401');
    expect(JSON.parse(response.ResponseTemplates!['application/json']!)).toEqual({ error: 'Missing API key', error_code: 'MISSING_AUTH' });
  });

  it('turns the authorizer\'s Deny into 401 INVALID_API_KEY', () => {
    for (const type of ['ACCESS_DENIED', 'INVALID_API_KEY']) {
      const response = bodyOf(type);
      expect(response.StatusCode).toBe('401');
      expect(JSON.parse(response.ResponseTemplates!['application/json']!)).toEqual({
        error: 'Invalid or inactive API key',
        error_code: 'INVALID_API_KEY',
      });
    }
  });

  it('answers throttling with 429 RATE_LIMITED in both body shapes and a Retry-After header', () => {
    for (const type of ['THROTTLED', 'QUOTA_EXCEEDED']) {
      const response = bodyOf(type);
      expect(response.StatusCode).toBe('429');
      expect(JSON.parse(response.ResponseTemplates!['application/json']!)).toEqual({
        success: false,
        message: 'RATE_LIMITED',
        error: 'Too many requests',
        error_code: 'RATE_LIMITED',
      });
      expect(response.ResponseParameters['gatewayresponse.header.Retry-After']).toMatch(/^'\d+'$/);
    }
  });

  it('keeps 5xx statuses and gives them the SERVER_ERROR body', () => {
    const response = bodyOf('DEFAULT_5XX');
    expect(response.StatusCode).toBeUndefined();
    expect(JSON.parse(response.ResponseTemplates!['application/json']!)).toMatchObject({ success: false, error_code: 'SERVER_ERROR' });
  });

  it('adds the client routes\' exact CORS headers to every gateway response, since they can reach /auth and /register', () => {
    const all = synth.template.findResources('AWS::ApiGateway::GatewayResponse');
    expect(Object.keys(all)).toHaveLength(gatewayResponses.length);
    for (const response of Object.values(all)) {
      expect(response.Properties.ResponseParameters).toMatchObject({
        'gatewayresponse.header.Access-Control-Allow-Origin': "'*'",
        'gatewayresponse.header.Access-Control-Allow-Methods': "'POST, OPTIONS'",
        'gatewayresponse.header.Access-Control-Allow-Headers': "'Content-Type, Authorization'",
        'gatewayresponse.header.Access-Control-Max-Age': "'86400'",
      });
    }
  });
});

describe('table', () => {
  it('is built from the shared table definition', () => {
    synth.template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
        { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection:
          index.projection.type === 'INCLUDE'
            ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projection.attributes] }
            : { ProjectionType: 'ALL' },
      })),
      TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
    });
  });

  it('is on-demand, recoverable to a point in time, protected from deletion and retained with the stack', () => {
    synth.template.hasResource('AWS::DynamoDB::Table', {
      Properties: {
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
      },
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });
});

describe('functions', () => {
  it('runs one arm64 nodejs22.x function per group plus the authorizer, configured for the table', () => {
    for (const name of functionNames) {
      const fn = synth.template.findResources('AWS::Lambda::Function')[logicalId(synth.stack, synth.service.functions[name])];
      expect(fn!.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        // Lambda's start and report lines are not ingested outside log level debug (docs/performance.md#cost-per-million-requests).
        LoggingConfig: { LogFormat: 'JSON', ApplicationLogLevel: 'INFO', SystemLogLevel: 'WARN' },
        Environment: {
          Variables: {
            TABLE_NAME: { Ref: logicalId(synth.stack, synth.service.table) },
            LOG_LEVEL: 'info',
            // API Gateway's edge distribution sets the country header (not the ASN) and cannot be bypassed.
            TRUSTED_VIEWER_HEADERS: 'country',
            BCRYPT_COST: '10',
            CACHE_TTL_SECONDS: '5',
            DEBUG: 'false',
            TRACING: 'true',
          },
        },
      });
      // Node reading each bundle's source map at load made the import 60–75 % slower: at the default level the maps stay beside the code.
      expect(fn!.Properties.Environment.Variables.NODE_OPTIONS).toBeUndefined();
      expect(fn!.Properties.ReservedConcurrentExecutions).toBeUndefined();
    }
    // And the events consumer, which has no route (test/cdk/events.test.ts), the OpenAPI document's and the webhooks' delivery function (test/cdk/webhooks.test.ts).
    expect(Object.keys(serviceResources(synth.template, 'AWS::Lambda::Function'))).toHaveLength(groups.length + 4);
  });

  it('bundles each function locally as an ES module with a source map, its chunks, and the X-Ray SDK as a file of its own beside it', () => {
    for (const name of functionNames) {
      expect(existsSync(bundleOf(name))).toBe(true);
      expect(readdirSync(bundleOf(name)).sort()).toEqual(['chunks', 'index.mjs', 'index.mjs.map', 'xray.mjs']);
      // Bundled in, the X-Ray SDK would be parsed at every cold start, traced or not.
      expect(readFileSync(path.join(bundleOf(name), 'index.mjs'), 'utf8')).not.toMatch(/cls-hooked|AWSXRay/);
      for (const chunk of readdirSync(path.join(bundleOf(name), 'chunks')).filter((file) => file.endsWith('.mjs'))) {
        expect(readdirSync(path.join(bundleOf(name), 'chunks'))).toContain(`${chunk}.map`);
      }
    }
  });

  it.each(loadedOnNeed)('leaves out of what a cold start of the %s function loads: %j', (name, libraries) => {
    const dir = bundleOf(name);
    const loadedAtStart = staticGraph(dir);
    const chunks = readdirSync(path.join(dir, 'chunks')).map((file) => readFileSync(path.join(dir, 'chunks', file), 'utf8'));
    for (const library of libraries) {
      const marker = lazyLibraryMarkers[library];
      expect({ library, atStart: loadedAtStart.some((text) => marker.test(text)) }).toEqual({ library, atStart: false });
      expect({ library, inChunks: chunks.some((text) => marker.test(text)) }).toEqual({ library, inChunks: true });
    }
  });

  // An AsyncLocalStorage turns on Node's promise hooks for the whole process: about 2 ms of every cold start, and a cost on every promise after.
  it.each(functionNames)('imports no node:async_hooks in what a cold start of the %s function loads', (name) => {
    const imports = staticGraph(bundleOf(name)).filter((text) => /(?:from|import)\s*["']node:async_hooks["']/.test(text));
    expect(imports).toHaveLength(0);
  });

  it('produces bundles Node loads as ES modules and whose handlers answer, with and without tracing', () => {
    // A fresh Node process, like the Lambda runtime: jest's module system would hide ESM and require() faults.
    // A POST builds the deps, and with TRACING the X-Ray SDK with them; a body of one unknown field fails validation on every route
    // (/app/list takes `{}` but refuses unknown fields) before any DynamoDB call.
    const script = `
      const results = {};
      const posts = JSON.parse(process.env.POSTS);
      for (const [name, file] of Object.entries(JSON.parse(process.env.BUNDLES))) {
        const { handler } = await import(file);
        const answers = [];
        for (const [httpMethod, resource] of [['OPTIONS', '/auth'], ['POST', posts[name]]]) {
          const event = { httpMethod, resource, headers: {}, body: '{"unexpected":true}', requestContext: { requestId: 'r', authorizer: { team_id: 't' } }, methodArn: 'arn:aws:execute-api:r:a:id/prod/POST/license/get' };
          answers.push(await handler(event, {}).then((reply) => reply.statusCode, (error) => error.message));
        }
        results[name] = answers;
      }
      console.log(JSON.stringify(results));`;
    const bundles = Object.fromEntries(functionNames.map((name) => [name, pathToFileURL(path.join(bundleOf(name), 'index.mjs')).href]));
    const posts = Object.fromEntries(groups.map((group) => [group, routes.find((route) => route.group === group)!.path]));
    for (const tracing of ['false', 'true']) {
      const run = spawnSync(process.execPath, ['--input-type=module', '--no-warnings', '-e', script], {
        env: { ...process.env, NODE_OPTIONS: '', BUNDLES: JSON.stringify(bundles), POSTS: JSON.stringify(posts), TABLE_NAME: 'smoke', AWS_REGION: 'us-east-1', TRACING: tracing, SIGNING_KMS_KEY_ID: 'arn:aws:kms:us-east-1:000000000000:key/smoke', WEBHOOK_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/smoke' },
        encoding: 'utf8',
      });
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toEqual({
        client: [204, 400],
        license: [204, 400],
        hwid: [204, 400],
        subscription: [204, 400],
        blacklist: [204, 400],
        app: [204, 400],
        webhook: [204, 400],
        integration: [204, 400],
        portal: [204, 400],
        // No x-api-key: the same "Unauthorized" API Gateway itself would answer.
        authorizer: ['Unauthorized', 'Unauthorized'],
      });
    }
  });

  it('traces every function and the stage with X-Ray, and lets each role write its traces', () => {
    for (const name of functionNames) {
      const fn = synth.template.findResources('AWS::Lambda::Function')[logicalId(synth.stack, synth.service.functions[name])];
      expect(fn!.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      const roleId = logicalId(synth.stack, synth.service.functions[name].role);
      const xray = statementsOfRole(roleId).filter((statement) => actionsOf(statement).some((action) => action.startsWith('xray:')));
      expect(xray).toEqual([expect.objectContaining({ Effect: 'Allow', Resource: '*' })]);
      expect(actionsOf(xray[0]!).sort()).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
    }
    synth.template.hasResourceProperties('AWS::ApiGateway::Stage', { TracingEnabled: true });
  });

  it("samples a tenth of a percent of the stage's requests by a rule of its own, with no reservoir", () => {
    const rules = Object.values(synth.template.findResources('AWS::XRay::SamplingRule'));
    expect(rules).toHaveLength(1);
    const rule = rules[0]!.Properties.SamplingRule;
    expect(rule).toMatchObject({
      FixedRate: 0.001,
      ReservoirSize: 0,
      Priority: 9000,
      ServiceName: 'licensing-prod/prod',
      ServiceType: 'AWS::ApiGateway::Stage',
      Host: '*',
      HTTPMethod: '*',
      URLPath: '*',
      Version: 1,
    });
    expect(rule.RuleName.length).toBeLessThanOrEqual(32);
    const stageId = Object.keys(synth.template.findResources('AWS::ApiGateway::Stage'))[0]!;
    expect(JSON.stringify(rule.ResourceARN)).toContain(stageId);
  });

  it('grants each function exactly the table actions of lib/permissions.ts, each scoped to its partitions by LeadingKeys', () => {
    const tableId = logicalId(synth.stack, synth.service.table);
    for (const name of functionNames) {
      const roleId = logicalId(synth.stack, synth.service.functions[name].role);
      const statements = statementsOfRole(roleId).filter((statement) => actionsOf(statement).some((action) => action.startsWith('dynamodb:')));
      for (const statement of statements) {
        expect(Object.keys(statement.Condition ?? {})).toEqual(['ForAllValues:StringLike']);
      }
      const onTable = statements.filter((statement) => JSON.stringify(statement.Resource) === JSON.stringify({ 'Fn::GetAtt': [tableId, 'Arn'] }));
      expect(onTable.map((statement) => ({ actions: actionsOf(statement).sort(), keys: leadingKeysOf(statement) }))).toEqual(
        tableAccess[name].grants.map((grant) => ({ actions: [...grant.actions].sort(), keys: leadingKeyPatterns(grant.partitions) })),
      );
      const onIndexes = statements.filter((statement) => !onTable.includes(statement));
      if (tableAccess[name].queriesIndexes.length > 0) {
        expect(onIndexes).toHaveLength(1);
        expect(actionsOf(onIndexes[0]!)).toEqual(['dynamodb:Query']);
        expect(leadingKeysOf(onIndexes[0]!)).toEqual(leadingKeyPatterns(tableAccess[name].queriesIndexes));
        for (const index of tableDefinition.globalSecondaryIndexes) {
          const granted = JSON.stringify(onIndexes[0]!.Resource).includes(`/index/${index.indexName}"`);
          expect([index.indexName, granted]).toEqual([index.indexName, tableAccess[name].indexes!.includes(index.indexName)]);
        }
      } else {
        expect(onIndexes).toHaveLength(0);
      }
    }
  });

  it('lets the client function write no API key and no team item', () => {
    const roleId = logicalId(synth.stack, synth.service.functions.client.role);
    const writes = statementsOfRole(roleId).filter((statement) =>
      actionsOf(statement).some((action) => ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'].includes(action)),
    );
    expect(writes.length).toBeGreaterThan(0);
    for (const statement of writes) {
      expect(leadingKeysOf(statement)).not.toContain('APIKEY#*');
      expect(leadingKeysOf(statement)).not.toContain('TEAM#*');
    }
  });

  it('grants no wildcard action anywhere', () => {
    const policies = serviceResources(synth.template, 'AWS::IAM::Policy');
    const actions = Object.values(policies).flatMap((policy) =>
      (policy.Properties.PolicyDocument.Statement as Statement[]).flatMap(actionsOf),
    );
    expect(actions.filter((action) => action.includes('*'))).toEqual([]);
  });

  it('lets each function write only to its own log group', () => {
    for (const name of functionNames) {
      const fn = synth.service.functions[name];
      const roleId = logicalId(synth.stack, fn.role);
      const logStatements = statementsOfRole(roleId).filter((statement) => actionsOf(statement).some((action) => action.startsWith('logs:')));
      expect(logStatements).toEqual([
        expect.objectContaining({ Resource: { 'Fn::GetAtt': [logicalId(synth.stack, fn.logGroup), 'Arn'] } }),
      ]);
    }
    synth.template.resourcePropertiesCountIs(
      'AWS::IAM::Role',
      { ManagedPolicyArns: Match.arrayWith([Match.serializedJson(Match.stringLikeRegexp('AWSLambdaBasicExecutionRole'))]) },
      0,
    );
  });
});

describe('operations', () => {
  const alarmActionsTo = () => [{ Ref: logicalId(synth.stack, synth.service.alarmTopic) }];

  it('alarms on the API\'s 5xx rate', () => {
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/ApiGateway',
      MetricName: '5XXError',
      Statistic: 'Average',
      Threshold: 0.01,
      AlarmActions: alarmActionsTo(),
    });
  });

  it('alarms on errors and throttles of every function', () => {
    for (const name of functionNames) {
      const functionRef = { Ref: logicalId(synth.stack, synth.service.functions[name]) };
      for (const metric of ['Errors', 'Throttles']) {
        synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: 'AWS/Lambda',
          MetricName: metric,
          Dimensions: [{ Name: 'FunctionName', Value: functionRef }],
          AlarmActions: alarmActionsTo(),
        });
      }
    }
  });

  it('alarms on the table\'s and the indexes\' read and write throttle events, which DynamoDB publishes per table', () => {
    const tableRef = { Ref: logicalId(synth.stack, synth.service.table) };
    const [alarm] = Object.values(
      synth.template.findResources('AWS::CloudWatch::Alarm', { Properties: { AlarmDescription: Match.stringLikeRegexp('DynamoDB throttled') } }),
    );
    const metrics = alarm!.Properties.Metrics as { Id: string; Expression?: string; MetricStat?: { Metric: { MetricName: string; Dimensions: { Name: string; Value: unknown }[] } } }[];
    const stats = metrics.filter((metric) => metric.MetricStat).map((metric) => metric.MetricStat!.Metric);
    const sources = 1 + tableDefinition.globalSecondaryIndexes.length;
    expect(stats.map((metric) => metric.MetricName).sort()).toEqual([...Array(sources).fill('ReadThrottleEvents'), ...Array(sources).fill('WriteThrottleEvents')]);
    for (const metric of stats) expect(metric.Dimensions).toContainEqual({ Name: 'TableName', Value: tableRef });
    expect(stats.filter((metric) => metric.Dimensions.some((dimension) => dimension.Name === 'GlobalSecondaryIndexName'))).toHaveLength(2 * tableDefinition.globalSecondaryIndexes.length);
    const [expression] = metrics.filter((metric) => metric.Expression);
    for (const metric of metrics.filter((candidate) => candidate.MetricStat)) expect(expression!.Expression).toContain(metric.Id);
    expect(alarm!.Properties.AlarmActions).toEqual(alarmActionsTo());
    expect(JSON.stringify(synth.template.toJSON())).not.toContain('ThrottledRequests');
  });

  it('lets CloudWatch alarms of this account publish to the alarm topic, over the SSL-only policy', () => {
    const topicRef = { Ref: logicalId(synth.stack, synth.service.alarmTopic) };
    synth.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [topicRef],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Resource: topicRef,
            Condition: Match.objectLike({ StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } }),
          }),
        ]),
      },
    });
  });

  it('writes JSON access logs with the request ID and never logs bodies', () => {
    synth.template.hasResourceProperties('AWS::ApiGateway::Stage', {
      AccessLogSetting: { Format: Match.stringLikeRegexp('"requestId":"\\$context.requestId"') },
      MethodSettings: Match.arrayWith([Match.objectLike({ HttpMethod: '*', LoggingLevel: 'ERROR', DataTraceEnabled: false })]),
    });
  });

  it('keeps every log group for the configured retention', () => {
    const groupsFound = synth.template.findResources('AWS::Logs::LogGroup');
    // The groups' functions, the authorizer's, the events consumer's, the OpenAPI function's, the delivery function's, the access logs', the dashboard deployment's.
    expect(Object.keys(groupsFound)).toHaveLength(groups.length + 6);
    for (const group of Object.values(groupsFound)) expect(group.Properties.RetentionInDays).toBe(30);
  });

  it('lets no log group live forever: every function logs into a group of the stack, and the execution logs get a retention', () => {
    const stackGroups = new Set(Object.keys(synth.template.findResources('AWS::Logs::LogGroup')));
    const functions = Object.entries(synth.template.findResources('AWS::Lambda::Function'));
    // CDK's LogRetention function sets a 1-day retention on its own group when it first runs.
    const retentionProvider = functions.filter(([id]) => /^LogRetention[0-9a-f]{32}/.test(id));
    expect(retentionProvider).toHaveLength(1);
    for (const [id, fn] of functions.filter((entry) => !retentionProvider.includes(entry))) {
      expect({ id, group: stackGroups.has(fn.Properties.LoggingConfig?.LogGroup?.Ref) }).toEqual({ id, group: true });
    }
    synth.template.hasResourceProperties('Custom::LogRetention', {
      LogGroupName: { 'Fn::Join': ['', ['API-Gateway-Execution-Logs_', { Ref: logicalId(synth.stack, synth.service.api) }, '/prod']] },
      RetentionInDays: 30,
    });
  });

  it('outputs what the admin CLI and the deploy guide name', () => {
    const outputs = synth.template.findOutputs('*');
    expect(Object.keys(outputs).sort()).toEqual(['AlarmTopicArn', 'ApiUrl', 'DashboardUrl', 'EventBusName', 'EventsDeadLetterQueueUrl', 'PortalDistributionDomain', 'PortalUrl', 'RestApiId', 'SigningKmsKeyArn', 'TableName', 'UsagePlanId']);
    expect(outputs.TableName!.Value).toEqual({ Ref: logicalId(synth.stack, synth.service.table) });
    expect(outputs.UsagePlanId!.Value).toEqual({ Ref: logicalId(synth.stack, synth.service.usagePlan) });
    expect(outputs.RestApiId!.Value).toEqual({ Ref: logicalId(synth.stack, synth.service.api) });
  });

  it('has no web ACL unless asked for', () => {
    synth.template.resourceCountIs('AWS::WAFv2::WebACL', 0);
  });
});

describe('cdk-nag', () => {
  it('reports no unacknowledged AwsSolutions finding', () => {
    const report = new AwsSolutionsChecks().validateScope(synth.stack);
    const findings = report.violations.map(
      (violation) => `${violation.ruleName}: ${violation.violatingResources.map((resource) => resource.constructPath ?? resource.resourceLogicalId).join(', ')}`,
    );
    expect(findings).toEqual([]);
  });
});
