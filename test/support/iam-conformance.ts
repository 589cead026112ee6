import type { Template } from 'aws-cdk-lib/assertions';
import type { AwsCall } from './aws-calls';

/**
 * Judges recorded AWS calls (test/support/aws-calls.ts) against the synthesized
 * template's IAM: each function's role policy, and for KMS the key policy too.
 *
 * A small evaluator of exactly what the template uses, not a general IAM
 * simulator: Allow statements with Action and Resource globs, and the
 * condition operators ForAllValues:StringLike, ForAllValues:StringEquals and
 * Null. Anything else in a judged statement (Deny, NotAction, another
 * operator) throws, so the evaluator can never pass what it does not
 * understand. @cloud-copilot/iam-simulate (0.1.173) was tried first: it
 * handles ForAllValues on the multi-valued dynamodb:LeadingKeys, but drops
 * `kms:EncryptionContext:app_id` from the request context as an unknown key
 * (it resolves only `/`-separated variable keys), so the Null condition the
 * signing key's grants rest on could never hold.
 */

/** A made-up account and region: the template's own references become concrete ARNs in them. */
const account = '123456789012';
const region = 'eu-west-1';

export interface Statement {
  Effect: string;
  Action?: string | string[];
  Resource?: unknown;
  Principal?: unknown;
  Condition?: Record<string, Record<string, unknown>>;
  NotAction?: unknown;
  NotResource?: unknown;
}

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

const arnPatterns: Record<string, (id: string, attribute: string) => string> = {
  'AWS::DynamoDB::Table': (id, attribute) => `arn:aws:dynamodb:${region}:${account}:table/${id}${attribute === 'StreamArn' ? '/stream/latest' : ''}`,
  'AWS::KMS::Key': (id) => `arn:aws:kms:${region}:${account}:key/${id}`,
  'AWS::IAM::Role': (id) => `arn:aws:iam::${account}:role/${id}`,
  'AWS::SQS::Queue': (id) => `arn:aws:sqs:${region}:${account}:${id}`,
  'AWS::Events::EventBus': (id) => `arn:aws:events:${region}:${account}:event-bus/${id}`,
  'AWS::Logs::LogGroup': (id) => `arn:aws:logs:${region}:${account}:log-group:${id}:*`,
};

const pseudoParameters: Record<string, string> = { 'AWS::Partition': 'aws', 'AWS::Region': region, 'AWS::AccountId': account, 'AWS::URLSuffix': 'amazonaws.com' };

/** A template value with its Ref, Fn::GetAtt and Fn::Join worked out. */
export function resolve(value: unknown, resources: Resources): unknown {
  if (Array.isArray(value)) return value.map((entry) => resolve(entry, resources));
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  if ('Ref' in object) return pseudoParameters[object.Ref as string] ?? object.Ref;
  if ('Fn::GetAtt' in object) {
    const [id, attribute] = object['Fn::GetAtt'] as [string, string];
    const arn = arnPatterns[resources[id]?.Type ?? ''];
    if (!arn) throw new Error(`no ARN form for ${id}.${attribute}`);
    return arn(id, attribute);
  }
  if ('Fn::Join' in object) {
    const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
    return parts.map((part) => resolve(part, resources)).join(separator);
  }
  return Object.fromEntries(Object.entries(object).map(([key, entry]) => [key, resolve(entry, resources)]));
}

const list = (value: unknown): string[] => (value === undefined ? [] : [value].flat() as string[]);

function glob(pattern: string, value: string, caseless = false): boolean {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${source}$`, caseless ? 'i' : '').test(value);
}

/** The request context IAM would see for a call. */
function contextOf(call: AwsCall): Record<string, string[] | undefined> {
  const context: Record<string, string[] | undefined> = {};
  if (call.leadingKeys) context['dynamodb:LeadingKeys'] = call.leadingKeys;
  if (call.encryptionContext) {
    context['kms:EncryptionContextKeys'] = Object.keys(call.encryptionContext);
    for (const [key, value] of Object.entries(call.encryptionContext)) context[`kms:EncryptionContext:${key}`] = [value];
  }
  return context;
}

function conditionHolds(operator: string, key: string, expected: unknown, context: Record<string, string[] | undefined>): boolean {
  const actual = context[key];
  const wanted = list(expected);
  switch (operator) {
    // ForAllValues holds for an absent key: a request naming no partition passes a LeadingKeys condition.
    case 'ForAllValues:StringLike':
      return (actual ?? []).every((value) => wanted.some((pattern) => glob(pattern, value)));
    case 'ForAllValues:StringEquals':
      return (actual ?? []).every((value) => wanted.includes(value));
    case 'Null':
      return (wanted[0] === 'true') === (actual === undefined);
    default:
      throw new Error(`the IAM conformance evaluator does not know the condition operator ${operator}`);
  }
}

/** Whether `statement` allows `action` on `resource` in `context`. */
export function allows(statement: Statement, action: string, resource: string, context: Record<string, string[] | undefined>): boolean {
  if (statement.Effect !== 'Allow' || statement.NotAction !== undefined || statement.NotResource !== undefined) {
    throw new Error(`the IAM conformance evaluator judges Allow statements with Action and Resource only: ${JSON.stringify(statement)}`);
  }
  if (!list(statement.Action).some((pattern) => glob(pattern, action, true))) return false;
  if (!list(statement.Resource).some((pattern) => glob(pattern, resource))) return false;
  return Object.entries(statement.Condition ?? {}).every(([operator, keys]) =>
    Object.entries(keys).every(([key, expected]) => conditionHolds(operator, key, expected, context)),
  );
}

/**
 * Statements about the runtime's own work, not calls of the function's code: its log lines, traces, and what
 * the event source mappings read (the table's stream, the delivery queue's messages).
 */
function judgedStatement(statement: Statement): boolean {
  const actions = list(statement.Action);
  if (actions.every((action) => /^(logs|xray):/.test(action))) return false;
  if (actions.every((action) => ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'].includes(action))) return false;
  if (actions.every((action) => ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueUrl', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'].includes(action))) return false;
  return true;
}

export interface FunctionIam {
  roleArn: string;
  statements: Statement[];
}

export interface StackIam {
  functions: Record<string, FunctionIam>;
  keyPolicy: Statement[];
  /** The ARN of each resource a call names (`table`, `index/<name>`, `signingKey`, `eventBus`, `deadLetterQueue`, `deliveryQueue`, `senderIdentity`). */
  arnOf(resource: string): string;
}

/**
 * The IAM of the template: `roles` names each function's role and `resources`
 * the logical IDs of what calls name; ARNs are resolved in the made-up account.
 */
export function stackIam(
  template: Template,
  roles: Record<string, string>,
  ids: { table: string; signingKey: string; eventBus: string; deadLetterQueue: string; deliveryQueue: string },
  /** The SES identity the stack was synthesized with (setting `sesIdentity`): not a resource of the template, named by its ARN. */
  sesIdentity?: string,
): StackIam {
  const resources = template.toJSON().Resources as Resources;
  const policies = Object.values(resources).filter((resource) => resource.Type === 'AWS::IAM::Policy');
  const functions = Object.fromEntries(
    Object.entries(roles).map(([name, roleId]) => {
      const statements = policies
        .filter((policy) => (policy.Properties!.Roles as { Ref: string }[]).some((role) => role.Ref === roleId))
        .flatMap((policy) => resolve((policy.Properties!.PolicyDocument as { Statement: unknown[] }).Statement, resources) as Statement[])
        .filter(judgedStatement);
      return [name, { roleArn: resolve({ 'Fn::GetAtt': [roleId, 'Arn'] }, resources) as string, statements }];
    }),
  );
  const keyPolicy = resolve((resources[ids.signingKey]!.Properties!.KeyPolicy as { Statement: unknown[] }).Statement, resources) as Statement[];
  const arnOf = (resource: string): string => {
    if (resource === 'senderIdentity') {
      if (sesIdentity === undefined) throw new Error('the stack was synthesized without sesIdentity');
      return `arn:aws:ses:${region}:${account}:identity/${sesIdentity}`;
    }
    const [kind, index] = resource.split('/');
    const id = kind === 'index' ? ids.table : ids[kind as keyof typeof ids];
    if (!id) throw new Error(`no resource ${resource} in the template`);
    const arn = resolve({ 'Fn::GetAtt': [id, 'Arn'] }, resources) as string;
    return index ? `${arn}/index/${index}` : arn;
  };
  return { functions, keyPolicy, arnOf };
}

function describe(call: AwsCall): string {
  if (call.leadingKeys) return `${call.resource} key ${call.leadingKeys.join(', ')}`;
  if (call.encryptionContext) return `${call.resource} with encryption context ${JSON.stringify(call.encryptionContext)}`;
  return call.resource;
}

/** Principals a key policy statement names that cover `roleArn` (the account's root delegates to the role's own policy). */
function keyPolicyCovers(statement: Statement, roleArn: string): boolean {
  const principals = list((statement.Principal as { AWS?: unknown } | undefined)?.AWS);
  return principals.some((principal) => principal === roleArn || principal === `arn:aws:iam::${account}:root`);
}

/**
 * Why IAM would refuse `call`, or undefined if it allows it. A KMS call needs
 * both the role's policy and the key's policy, which is stricter than KMS (where
 * a key policy naming the role alone suffices), and what the template gives.
 */
export function denial(iam: StackIam, call: AwsCall): string | undefined {
  const fn = iam.functions[call.function];
  if (!fn) return `${call.function} has no role in the template (${call.action} on ${describe(call)})`;
  const resource = iam.arnOf(call.resource);
  const context = contextOf(call);
  if (!fn.statements.some((statement) => allows(statement, call.action, resource, context))) {
    return `${call.function} may not ${call.action} on ${describe(call)}`;
  }
  if (call.action.startsWith('kms:')) {
    const byKey = iam.keyPolicy.some((statement) => keyPolicyCovers(statement, fn.roleArn) && allows({ ...statement, Principal: undefined }, call.action, resource, context));
    if (!byKey) return `the signing key's policy does not let ${call.function} ${call.action} on ${describe(call)}`;
  }
  return undefined;
}

/** `table/TableCD117FA1/index/gsi1` of an ARN: enough to name it in a message. */
const shortArn = (arn: string): string => arn.split(':').slice(5).join(':') || arn;

/**
 * The denials of `calls`, one line per function, action and resource with the
 * first call's keys as the example and how many other calls were refused alike.
 */
export function denials(iam: StackIam, calls: readonly AwsCall[]): string[] {
  const grouped = new Map<string, { first: string; more: number }>();
  for (const call of calls) {
    const reason = denial(iam, call);
    if (reason === undefined) continue;
    const group = `${call.function} ${call.action} ${call.resource}`;
    const known = grouped.get(group);
    if (known) known.more += 1;
    else grouped.set(group, { first: reason, more: 0 });
  }
  return [...grouped.values()].map(({ first, more }) => (more > 0 ? `${first} (and ${more} more calls alike)` : first));
}

/** One grant: a function may send an action to a resource, on partitions matching a LeadingKeys pattern if the statement has one. */
export interface Grant {
  function: string;
  statement: Statement;
  action: string;
  resource: string;
  pattern?: string;
}

/** Every grant of the template's judged statements, one per function, action, resource and LeadingKeys pattern. */
export function grantsOf(iam: StackIam): Grant[] {
  return Object.entries(iam.functions).flatMap(([name, fn]) =>
    fn.statements.flatMap((statement) => {
      const patterns = list(statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys']);
      return list(statement.Action).flatMap((action) =>
        list(statement.Resource).flatMap((resource) =>
          (patterns.length > 0 ? patterns : [undefined]).map((pattern) => ({ function: name, statement, action, resource, ...(pattern ? { pattern } : {}) })),
        ),
      );
    }),
  );
}

/** The grants no recorded call used, each named: what the code never needs. */
export function unusedGrants(iam: StackIam, calls: readonly AwsCall[]): string[] {
  const used = (grant: Grant) =>
    calls.some((call) => {
      if (call.function !== grant.function || !glob(grant.action, call.action, true)) return false;
      const resource = iam.arnOf(call.resource);
      if (!glob(grant.resource, resource) || !allows(grant.statement, call.action, resource, contextOf(call))) return false;
      return grant.pattern === undefined || (call.leadingKeys ?? []).some((key) => glob(grant.pattern!, key));
    });
  return grantsOf(iam)
    .filter((grant) => !used(grant))
    .map((grant) => `${grant.function} is granted ${grant.action} on ${shortArn(grant.resource)}${grant.pattern ? ` for ${grant.pattern}` : ''} but no call used it`);
}

type Properties = Record<string, any>;

/** The logical ID of the function a template value names (`Fn::GetAtt [id, 'Arn']`, alone or inside an `Fn::Join`). */
function functionNamed(value: unknown, resources: Resources): string | undefined {
  const found = JSON.stringify(value).match(/"Fn::GetAtt":\["([^"]+)","Arn"\]/g) ?? [];
  return found.map((match) => /"Fn::GetAtt":\["([^"]+)"/.exec(match)![1]!).find((id) => resources[id]?.Type === 'AWS::Lambda::Function');
}

/** `execute-api` ARN of a method of a stage, path parameters as `*` as API Gateway matches them. */
const executeApiArn = (api: string, stage: string, method: string, path: string) =>
  `arn:aws:execute-api:${region}:${account}:${api}/${stage}/${method}${path.replace(/\{[^}]+\}/g, '*')}`;

/**
 * What each function must let API Gateway invoke it for: every REST method and HTTP API route that
 * integrates it (its API, stage, method and path), and each REST authorizer that runs it.
 */
function invocationsNeeded(resources: Resources): Set<string> {
  const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type) as [string, { Properties: Properties }][];
  const needed = new Set<string>();
  const restPaths = new Map<string, string>();
  const restPath = (id: string): string => {
    const known = restPaths.get(id);
    if (known !== undefined) return known;
    const parent = resources[id]!.Properties!.ParentId as { Ref?: string };
    const path = `${parent.Ref && resources[parent.Ref] ? restPath(parent.Ref) : ''}/${resources[id]!.Properties!.PathPart as string}`;
    restPaths.set(id, path);
    return path;
  };
  const stagesOf = (type: string, apiKey: string, api: string, name: (id: string, stage: Properties) => string) =>
    ofType(type).filter(([, stage]) => stage.Properties[apiKey]?.Ref === api).map(([id, stage]) => name(id, stage.Properties));
  for (const [, method] of ofType('AWS::ApiGateway::Method')) {
    const fn = method.Properties.Integration?.Type === 'AWS_PROXY' ? functionNamed(method.Properties.Integration.Uri, resources) : undefined;
    if (!fn) continue;
    const api = method.Properties.RestApiId.Ref as string;
    const resource = method.Properties.ResourceId.Ref as string | undefined;
    const path = resource && resources[resource] ? restPath(resource) : '/';
    // CloudFormation names a REST stage by its resource's Ref, which the template's ARNs use.
    for (const stage of stagesOf('AWS::ApiGateway::Stage', 'RestApiId', api, (id) => id)) needed.add(`${fn} ${executeApiArn(api, stage, method.Properties.HttpMethod, path)}`);
  }
  for (const [id, authorizer] of ofType('AWS::ApiGateway::Authorizer')) {
    const fn = functionNamed(authorizer.Properties.AuthorizerUri, resources);
    if (fn) needed.add(`${fn} arn:aws:execute-api:${region}:${account}:${authorizer.Properties.RestApiId.Ref}/authorizers/${id}`);
  }
  for (const [, route] of ofType('AWS::ApiGatewayV2::Route')) {
    const integration = JSON.stringify(route.Properties.Target ?? '').match(/"Ref":"([^"]+)"/)?.[1];
    const fn = integration ? functionNamed(resources[integration]!.Properties!.IntegrationUri, resources) : undefined;
    if (!fn) continue;
    const api = route.Properties.ApiId.Ref as string;
    const [method, path] = (route.Properties.RouteKey as string).split(' ') as [string, string];
    for (const stage of stagesOf('AWS::ApiGatewayV2::Stage', 'ApiId', api, (_, properties) => properties.StageName as string)) needed.add(`${fn} ${executeApiArn(api, stage, method, path)}`);
  }
  return needed;
}

/**
 * API Gateway's invoke permissions (`AWS::Lambda::Permission`) against what the template's APIs need:
 * each must name exactly one route of one stage (or an authorizer) integrated with its function, no
 * wider, and each such route must have one. Findings, one line each; none when the two agree.
 */
export function invokePermissionFindings(template: Template): string[] {
  const resources = template.toJSON().Resources as Resources;
  const granted = new Set(
    Object.values(resources)
      .filter((resource) => resource.Type === 'AWS::Lambda::Permission' && resource.Properties!.Principal === 'apigateway.amazonaws.com')
      .map((permission) => `${functionNamed(permission.Properties!.FunctionName, resources)} ${resolve(permission.Properties!.SourceArn, resources) as string}`),
  );
  const needed = invocationsNeeded(resources);
  return [
    ...[...granted].filter((grant) => !needed.has(grant)).map((grant) => `granted but no route needs it: ${grant}`),
    ...[...needed].filter((need) => !granted.has(need)).map((need) => `needed but not granted: ${need}`),
  ];
}
