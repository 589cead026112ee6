import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CfnOutput, Duration, Lazy, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { authorizerEntry, groups, handlerEntry, openApiPath, routes, sideOf, type FunctionName, type Group, type Side } from '../functions/routes';
import { tableDefinition } from '../functions/data/table';
import { corsHeaders } from '../functions/core/http/middleware';
import { DashboardSite } from './dashboard';
import { gatewayResponses, rateLimitedBody } from './gateway-responses';
import { lambdaBundling, xrayChunkCommand } from './bundling';
import { acknowledgeLogRetentionFindings, acknowledgeNagFindings } from './nag';
import { leadingKeyPatterns, tableAccess, type Partition } from './permissions';
import { trustedViewerHeaders, type Settings } from './settings';
import type { LogLevel as ServiceLogLevel } from '../functions/core/config';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));

export interface LicensingStackProps extends StackProps {
  settings: Settings;
}

/** The events consumer has no route: the table's stream invokes it. */
export const eventsEntry = 'functions/events/handler.ts';
export const openApiEntry = 'functions/openapi/handler.ts';

/** The header the authorizer reads, and the identity source API Gateway checks and caches on. */
export const apiKeyHeader = 'x-api-key';

/** The header the owner's CloudFront adds with `cloudFrontOriginSecret` as its value. */
export const cloudFrontOriginHeader = 'x-origin-verify';

/**
 * What each group does with the signing key: the client signs answers (Decrypt) and makes the key of an
 * application made before signing (Encrypt); the app group makes such a key for /app/signing-key (Encrypt).
 */
const signingKeyUse: Partial<Record<FunctionName, readonly string[]>> = { client: ['kms:Encrypt', 'kms:Decrypt'], app: ['kms:Encrypt'] };

/** Decrypting and encrypting require `{app_id}` as the whole encryption context. */
const appContextOnly = {
  'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['app_id'] },
  Null: { 'kms:EncryptionContext:app_id': 'false' },
};

/** What the account may do to the signing key without ever reading what it protects. */
const keyAdministration = [
  'kms:Create*', 'kms:Describe*', 'kms:Enable*', 'kms:List*', 'kms:Put*', 'kms:Update*', 'kms:Revoke*', 'kms:Disable*',
  'kms:Get*', 'kms:Delete*', 'kms:TagResource', 'kms:UntagResource', 'kms:ScheduleKeyDeletion', 'kms:CancelKeyDeletion',
];

const clientRoutes = routes.filter((route) => sideOf(route.group) === 'client').map((route) => route.path);

export class LicensingStack extends Stack {
  readonly table: dynamodb.Table;
  /** Encrypts applications' private signing keys (docs/client-api.md, "Signed answers and offline tokens"). */
  readonly signingKey: kms.Key;
  readonly api: apigateway.RestApi;
  readonly functions: Record<FunctionName, NodejsFunction>;
  readonly authorizer: apigateway.RequestAuthorizer;
  readonly usagePlan: apigateway.UsagePlan;
  readonly alarmTopic: sns.Topic;
  readonly dashboard: DashboardSite | undefined;
  /** Every event of docs/events.md; owners add their own rules and targets. */
  readonly eventBus: events.EventBus;
  /** Stream records the consumer kept failing on, and events EventBridge kept refusing. */
  readonly eventsDeadLetterQueue: sqs.Queue;
  /**
   * `Access-Control-Allow-Origin` of the management routes (setting managementCorsOrigin). By
   * default the dashboard's origin, a token resolved when the dashboard exists: the functions and
   * preflights refer to the distribution, which refers only to the API's id, so there is no cycle.
   */
  readonly managementCorsOrigin: string;

  constructor(scope: Construct, id: string, props: LicensingStackProps) {
    super(scope, id, props);
    const { settings } = props;

    this.table = this.createTable();
    this.signingKey = this.createSigningKey();
    // Management timeouts stay under API Gateway's 29-second integration limit; bulk operations need most of it.
    this.functions = {
      client: this.createFunction('client', handlerEntry('client'), settings, Duration.seconds(10), settings.clientReservedConcurrency),
      license: this.createFunction('license', handlerEntry('license'), settings, Duration.seconds(28), settings.managementReservedConcurrency),
      hwid: this.createFunction('hwid', handlerEntry('hwid'), settings, Duration.seconds(28), settings.managementReservedConcurrency),
      subscription: this.createFunction('subscription', handlerEntry('subscription'), settings, Duration.seconds(28), settings.managementReservedConcurrency),
      blacklist: this.createFunction('blacklist', handlerEntry('blacklist'), settings, Duration.seconds(28), settings.managementReservedConcurrency),
      app: this.createFunction('app', handlerEntry('app'), settings, Duration.seconds(28), settings.managementReservedConcurrency),
      authorizer: this.createFunction('authorizer', authorizerEntry, settings, Duration.seconds(10), settings.authorizerReservedConcurrency),
      events: this.createFunction('events', eventsEntry, settings, Duration.minutes(1), 0),
      openapi: this.createFunction('openapi', openApiEntry, settings, Duration.seconds(10), 0),
    };
    this.eventBus = new events.EventBus(this, 'EventBus', { eventBusName: `licensing-${settings.stage}` });
    this.eventsDeadLetterQueue = new sqs.Queue(this, 'EventsDeadLetterQueue', {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.connectEventsConsumer(settings);
    this.managementCorsOrigin =
      settings.managementCorsOrigin ?? (settings.dashboard ? Lazy.string({ produce: () => this.dashboard!.origin }) : '*');
    for (const group of groups) {
      if (sideOf(group) === 'management') this.functions[group].addEnvironment('MANAGEMENT_CORS_ORIGIN', this.managementCorsOrigin);
    }

    this.authorizer = new apigateway.RequestAuthorizer(this, 'ApiKeyAuthorizer', {
      handler: this.functions.authorizer,
      identitySources: [apigateway.IdentitySource.header(apiKeyHeader)],
      resultsCacheTtl: Duration.seconds(settings.authorizerCacheTtlSeconds),
    });
    this.api = this.createApi(settings);
    this.usagePlan = this.api.addUsagePlan('OwnerUsagePlan', {
      name: `licensing-${settings.stage}-owners`,
      description: 'Throttles and meters each owner; the authorizer names the owner key of a request.',
      throttle: { rateLimit: settings.managementRateLimit, burstLimit: settings.managementBurstLimit },
      quota: settings.managementQuotaPerDay > 0 ? { limit: settings.managementQuotaPerDay, period: apigateway.Period.DAY } : undefined,
      apiStages: [{ api: this.api, stage: this.api.deploymentStage }],
    });
    if (settings.enableWaf || settings.cloudFrontOriginSecret !== undefined) this.createWebAcl(settings);
    this.alarmTopic = this.createAlarms(settings);

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the API: every route is a path under it' });
    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'DynamoDB table; pass it to the admin CLI' });
    new CfnOutput(this, 'UsagePlanId', { value: this.usagePlan.usagePlanId, description: 'Usage plan every owner API key joins' });
    new CfnOutput(this, 'RestApiId', { value: this.api.restApiId });
    new CfnOutput(this, 'SigningKmsKeyArn', { value: this.signingKey.keyArn, description: 'KMS key of signing keys; the admin CLI needs it as SIGNING_KMS_KEY_ID' });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarmTopic.topicArn, description: 'Subscribe to receive alarms' });
    this.dashboard = settings.dashboard
      ? new DashboardSite(this, 'Dashboard', {
          apiUrl: this.api.url,
          apiOrigin: `https://${this.api.restApiId}.execute-api.${this.region}.${this.urlSuffix}`,
          logRetentionDays: settings.logRetentionDays,
        })
      : undefined;
    if (this.dashboard) new CfnOutput(this, 'DashboardUrl', { value: this.dashboard.url, description: 'The owners\' dashboard (sign in with an API key)' });

    acknowledgeNagFindings(
      this,
      settings,
      Object.values(this.functions).map((fn) => fn.role!),
      { consumerRole: this.functions.events.role!, deadLetterQueue: this.eventsDeadLetterQueue },
    );
  }

  /**
   * Stream → events function: batches in shard order, a failed record retried
   * (ReportBatchItemFailures, bisected on error), given up after the retry
   * limit to the dead-letter queue, whose alarm tells the owner. Only changes
   * of items events are made of reach the function (the consumer's own audit
   * items, counters and marks are filtered out before any invocation).
   */
  private connectEventsConsumer(settings: Settings): void {
    const fn = this.functions.events;
    fn.addEnvironment('EVENT_BUS_NAME', this.eventBus.eventBusName);
    fn.addEnvironment('EVENTS_DLQ_URL', this.eventsDeadLetterQueue.queueUrl);
    fn.addEnvironment('AUDIT_RETENTION_DAYS', String(settings.auditRetentionDays));
    this.eventBus.grantPutEventsTo(fn);
    // The sink dead-letters refused events, and the event source mapping failed records, under the
    // function's role: both only send. CDK's grantSendMessages (and SqsDlq, which calls it) would add
    // GetQueueAttributes and GetQueueUrl, which neither uses: the URL comes in EVENTS_DLQ_URL.
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.eventsDeadLetterQueue.queueArn] }));
    const deadLetters: lambda.IEventSourceDlq = { bind: () => ({ destination: this.eventsDeadLetterQueue.queueArn }) };
    fn.addEventSource(
      new DynamoEventSource(this.table, {
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(1),
        bisectBatchOnError: true,
        retryAttempts: 10,
        reportBatchItemFailures: true,
        onFailure: deadLetters,
        filters: [
          lambda.FilterCriteria.filter({
            dynamodb: { Keys: { sk: { S: ['APP', 'LIC', 'SUB', ...lambda.FilterRule.beginsWith('BL#'), ...lambda.FilterRule.beginsWith('USER#')] } } },
          }),
        ],
      }),
    );
    new CfnOutput(this, 'EventBusName', { value: this.eventBus.eventBusName, description: 'EventBridge bus of application, license, subscription and blacklist events' });
    new CfnOutput(this, 'EventsDeadLetterQueueUrl', { value: this.eventsDeadLetterQueue.queueUrl, description: 'Events and stream records that could not be delivered' });
  }

  private createTable(): dynamodb.Table {
    const table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: tableDefinition.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: tableDefinition.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
      stream: dynamodb.StreamViewType[tableDefinition.streamViewType],
      // Licenses and owners outlive any one deployment: deleting the stack leaves the table behind.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of tableDefinition.globalSecondaryIndexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }
    return table;
  }

  private createFunction(name: FunctionName, entry: string, settings: Settings, timeout: Duration, reservedConcurrency: number): NodejsFunction {
    const id = pascalCase(name);
    const logGroup = new logs.LogGroup(this, `${id}Logs`, {
      retention: settings.logRetentionDays as logs.RetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Our own role instead of AWSLambdaBasicExecutionRole: it may write to its one log group, nowhere else.
    const role = new iam.Role(this, `${id}Role`, { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    logGroup.grantWrite(role);
    const fn = new NodejsFunction(this, `${id}Function`, {
      role,
      entry: path.join(projectRoot, entry),
      handler: 'handler',
      projectRoot,
      depsLockFilePath: path.join(projectRoot, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: settings.lambdaMemoryMb,
      timeout,
      // Caps what a flood of one kind of request can take of the account's concurrency, and keeps that much for it.
      reservedConcurrentExecutions: reservedConcurrency > 0 ? reservedConcurrency : undefined,
      logGroup,
      // Active tracing also grants the role xray:PutTraceSegments and xray:PutTelemetryRecords.
      tracing: settings.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      // Platform lines (START, REPORT, uncaught errors) become JSON with the request ID, like the service's own lines.
      loggingFormat: lambda.LoggingFormat.JSON,
      // With JSON logs Lambda filters application lines by their level itself (INFO unless told): it must pass what LOG_LEVEL keeps.
      applicationLogLevelV2: applicationLogLevels[settings.logLevel],
      environment: {
        TABLE_NAME: this.table.tableName,
        LOG_LEVEL: settings.logLevel,
        TRUSTED_VIEWER_HEADERS: trustedViewerHeaders(settings).join(','),
        BCRYPT_COST: String(settings.bcryptCost),
        CACHE_TTL_SECONDS: String(settings.cacheTtlSeconds),
        DEBUG: String(settings.debug),
        TRACING: String(settings.tracing),
        ...(signingKeyUse[name] ? { SIGNING_KMS_KEY_ID: this.signingKey.keyArn } : {}),
        NODE_OPTIONS: '--enable-source-maps',
      },
      bundling: {
        forceDockerBundling: false,
        logLevel: LogLevel.WARNING,
        format: OutputFormat.ESM,
        target: lambdaBundling.target,
        minify: lambdaBundling.minify,
        sourceMap: lambdaBundling.sourceMap,
        mainFields: [...lambdaBundling.mainFields],
        tsconfig: path.join(projectRoot, 'tsconfig.json'),
        externalModules: [...lambdaBundling.externalModules],
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (_inputDir: string, outputDir: string) => [xrayChunkCommand(projectRoot, outputDir)],
        },
      },
    });
    this.grantTableAccess(role, name);
    const keyActions = signingKeyUse[name];
    if (keyActions) this.grantSigningKeyUse(role, keyActions);
    return fn;
  }

  /**
   * Least privilege in the key policy itself: the account administers the key
   * but may not decrypt with it; operators (the admin CLI, through their IAM
   * rights) may only encrypt, for one application at a time; decrypting is left
   * to the roles `grantSigningKeyUse` names.
   */
  private createSigningKey(): kms.Key {
    const account = new iam.AccountRootPrincipal();
    return new kms.Key(this, 'SigningKeyEncryption', {
      description: "Encrypts applications' private Ed25519 signing keys; encryption context {app_id}",
      enableKeyRotation: true,
      // Ciphertexts in the retained table would be unreadable without it.
      removalPolicy: RemovalPolicy.RETAIN,
      policy: new iam.PolicyDocument({
        statements: [
          new iam.PolicyStatement({ sid: 'Administer', principals: [account], actions: keyAdministration, resources: ['*'] }),
          new iam.PolicyStatement({
            sid: 'OperatorsEncryptPerApplication',
            principals: [account],
            actions: ['kms:Encrypt'],
            resources: ['*'],
            conditions: appContextOnly,
          }),
        ],
      }),
    });
  }

  /** These actions (Encrypt, Decrypt) only, and only with an encryption context that names an application and nothing else. */
  private grantSigningKeyUse(role: iam.Role, actions: readonly string[]): void {
    const statement = { actions: [...actions], conditions: appContextOnly };
    role.addToPolicy(new iam.PolicyStatement({ ...statement, resources: [this.signingKey.keyArn] }));
    this.signingKey.addToResourcePolicy(new iam.PolicyStatement({ ...statement, principals: [role], resources: ['*'] }));
  }

  private grantTableAccess(role: iam.Role, name: FunctionName): void {
    const access = tableAccess[name];
    // LeadingKeys is the partition key of every item a request names, or of the partition a query reads.
    const onPartitions = (partitions: readonly Partition[]) => ({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': leadingKeyPatterns(partitions) },
    });
    for (const grant of access.grants) {
      role.addToPolicy(
        new iam.PolicyStatement({ actions: [...grant.actions], resources: [this.table.tableArn], conditions: onPartitions(grant.partitions) }),
      );
    }
    if (access.queriesIndexes.length > 0) {
      role.addToPolicy(
        new iam.PolicyStatement({
          actions: ['dynamodb:Query'],
          resources: tableDefinition.globalSecondaryIndexes.map((index) => `${this.table.tableArn}/index/${index.indexName}`),
          conditions: onPartitions(access.queriesIndexes),
        }),
      );
    }
  }

  private createApi(settings: Settings): apigateway.RestApi {
    const accessLogs = new logs.LogGroup(this, 'ApiAccessLogs', {
      retention: settings.logRetentionDays as logs.RetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const clientThrottle = { throttlingRateLimit: settings.clientRateLimit, throttlingBurstLimit: settings.clientBurstLimit };
    const methodOptions: Record<string, apigateway.MethodDeploymentOptions> = {};
    for (const route of routes) {
      if (sideOf(route.group) === 'client') methodOptions[`${route.path}/POST`] = clientThrottle;
    }

    const api = new apigateway.RestApi(this, 'Api', {
      restApiName: `licensing-${settings.stage}`,
      description: 'Software licensing service',
      endpointTypes: [settings.endpointType === 'edge' ? apigateway.EndpointType.EDGE : apigateway.EndpointType.REGIONAL],
      // Usage plans meter the key the authorizer names, not a key the caller sends.
      apiKeySourceType: apigateway.ApiKeySourceType.AUTHORIZER,
      // Execution logging needs the account-wide API Gateway role; an empty account has none.
      cloudWatchRole: true,
      deployOptions: {
        stageName: settings.stage,
        accessLogDestination: new apigateway.LogGroupLogDestination(accessLogs),
        accessLogFormat: apigateway.AccessLogFormat.jsonWithStandardFields({
          caller: false,
          httpMethod: true,
          ip: true,
          protocol: true,
          requestTime: true,
          resourcePath: true,
          responseLength: true,
          status: true,
          user: false,
        }),
        // Errors only, and never bodies: they carry passwords.
        loggingLevel: apigateway.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        metricsEnabled: true,
        tracingEnabled: settings.tracing,
        methodOptions,
      },
    });

    // API Gateway makes its execution log group itself, on the stage's first logged error, and keeps it forever.
    // LogRetention creates that group ahead (or finds it, on a stack deployed before it existed) and sets its retention.
    new logs.LogRetention(this, 'ApiExecutionLogsRetention', {
      logGroupName: `API-Gateway-Execution-Logs_${api.restApiId}/${settings.stage}`,
      retention: settings.executionLogRetentionDays as logs.RetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    acknowledgeLogRetentionFindings(this, api, settings.stage);

    // RestApi always adds an "Endpoint" output; the stack's own ApiUrl output is the one documented name.
    api.node.tryRemoveChild('Endpoint');

    const integrations = new Map<Group, apigateway.LambdaIntegration>(
      groups.map((group) => [group, new apigateway.LambdaIntegration(this.functions[group], { allowTestInvoke: false })]),
    );
    for (const route of routes) {
      const side = sideOf(route.group);
      const resource = api.root.resourceForPath(route.path);
      resource.addMethod(
        'POST',
        integrations.get(route.group)!,
        side === 'management' ? { authorizer: this.authorizer, authorizationType: apigateway.AuthorizationType.CUSTOM, apiKeyRequired: true } : {},
      );
      addPreflight(resource, side, this.managementCorsOrigin);
    }
    // Public like the route list itself: no authorizer, no API key; the stage's throttle still applies.
    api.root
      .resourceForPath(openApiPath)
      .addMethod('GET', new apigateway.LambdaIntegration(this.functions.openapi, { allowTestInvoke: false }), { authorizationType: apigateway.AuthorizationType.NONE });

    // Gateway responses are API-wide, so one header set serves both sides: the client routes' exact values (docs/client-api.md).
    // Browsers read Access-Control-Allow-Headers only on preflights, which answer per side (addPreflight).
    // `*` also lets the dashboard read a gateway's 401, 403 or 429 on a management route.
    const gatewayCors = quoteHeaders(corsHeaders('client', '*'));
    for (const response of gatewayResponses) {
      api.addGatewayResponse(`Gateway${response.type}`, {
        type: apigateway.ResponseType.of(response.type),
        statusCode: response.statusCode,
        responseHeaders: { ...gatewayCors, ...quoteHeaders(response.headers ?? {}) },
        templates: response.body ? { 'application/json': JSON.stringify(response.body) } : undefined,
      });
    }
    return api;
  }

  private createWebAcl(settings: Settings): void {
    const metric = (name: string) => ({ cloudWatchMetricsEnabled: true, metricName: name, sampledRequestsEnabled: true });
    const rateLimited = {
      block: {
        customResponse: {
          responseCode: 429,
          customResponseBodyKey: 'rateLimited',
          responseHeaders: [
            { name: 'Retry-After', value: '60' },
            { name: 'Access-Control-Allow-Origin', value: '*' },
          ],
        },
      },
    };
    const rules: wafv2.CfnWebACL.RuleProperty[] = [];
    if (settings.cloudFrontOriginSecret !== undefined) {
      // Only the owner's distribution adds this header: a request without it reached execute-api directly.
      rules.push({
        name: 'RequireCloudFrontOrigin',
        priority: rules.length,
        statement: {
          notStatement: {
            statement: {
              byteMatchStatement: {
                fieldToMatch: { singleHeader: { Name: cloudFrontOriginHeader } },
                positionalConstraint: 'EXACTLY',
                searchString: settings.cloudFrontOriginSecret,
                textTransformations: [{ priority: 0, type: 'NONE' }],
              },
            },
          },
        },
        action: { block: {} },
        visibilityConfig: metric(`licensing-${settings.stage}-bypassed-cloudfront`),
      });
    }
    if (settings.enableWaf) {
      rules.push({
        name: 'RateLimitPerIp',
        priority: rules.length,
        statement: { rateBasedStatement: { limit: settings.wafRateLimitPerIp, aggregateKeyType: 'IP' } },
        action: rateLimited,
        visibilityConfig: metric(`licensing-${settings.stage}-rate-per-ip`),
      });
      // WAF cannot count by a body field, so not by app_id: per IP, on the client routes only, is the closest it gets.
      const clientPath = (path: string) => ({
        byteMatchStatement: {
          fieldToMatch: { uriPath: {} },
          positionalConstraint: 'ENDS_WITH',
          searchString: path,
          textTransformations: [{ priority: 0, type: 'NORMALIZE_PATH' }],
        },
      });
      rules.push({
        name: 'RateLimitClientRoutesPerIp',
        priority: rules.length,
        statement: {
          rateBasedStatement: {
            limit: settings.wafClientRateLimitPerIp,
            aggregateKeyType: 'IP',
            scopeDownStatement: { orStatement: { statements: clientRoutes.map(clientPath) } },
          },
        },
        action: rateLimited,
        visibilityConfig: metric(`licensing-${settings.stage}-client-rate-per-ip`),
      });
    }
    const acl = new wafv2.CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: metric(`licensing-${settings.stage}`),
      customResponseBodies: { rateLimited: { contentType: 'APPLICATION_JSON', content: JSON.stringify(rateLimitedBody) } },
      rules,
    });
    new wafv2.CfnWebACLAssociation(this, 'WebAclAssociation', {
      resourceArn: this.api.deploymentStage.stageArn,
      webAclArn: acl.attrArn,
    });
  }

  private createAlarms(settings: Settings): sns.Topic {
    const topic = new sns.Topic(this, 'AlarmTopic', { displayName: `Licensing ${settings.stage} alarms`, enforceSSL: true });
    // enforceSSL gives the topic a resource policy, which replaces SNS's default one: CloudWatch needs its own allow.
    topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          ArnLike: { 'aws:SourceArn': `arn:${this.partition}:cloudwatch:${this.region}:${this.account}:alarm:*` },
          StringEquals: { 'aws:SourceAccount': this.account },
        },
      }),
    );
    if (settings.alarmEmail) topic.addSubscription(new subscriptions.EmailSubscription(settings.alarmEmail));
    const action = new cloudwatchActions.SnsAction(topic);
    const period = Duration.minutes(5);

    const alarms: cloudwatch.Alarm[] = [
      new cloudwatch.Alarm(this, 'Api5xxRateAlarm', {
        alarmDescription: 'More than 1% of API requests answered 5xx in two of three 5-minute periods',
        metric: this.api.deploymentStage.metricServerError({ statistic: cloudwatch.Stats.AVERAGE, period }),
        threshold: 0.01,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    ];
    for (const [name, fn] of Object.entries(this.functions)) {
      const id = pascalCase(name);
      alarms.push(
        new cloudwatch.Alarm(this, `${id}ErrorsAlarm`, {
          alarmDescription: `The ${name} Lambda failed (uncaught error, timeout or crash); handled errors do not count`,
          metric: fn.metricErrors({ statistic: cloudwatch.Stats.SUM, period }),
          threshold: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
        new cloudwatch.Alarm(this, `${id}ThrottlesAlarm`, {
          alarmDescription: `The ${name} Lambda was throttled: the account's concurrency limit was reached`,
          metric: fn.metricThrottles({ statistic: cloudwatch.Stats.SUM, period }),
          threshold: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    }
    // ThrottledRequests is only published per operation; the throttle events carry the bare TableName dimension.
    const throttleEvents = (metricName: string, dimensionsMap: Record<string, string>) =>
      new cloudwatch.Metric({ namespace: 'AWS/DynamoDB', metricName, dimensionsMap, statistic: cloudwatch.Stats.SUM, period });
    const throttleSources = [
      { TableName: this.table.tableName },
      ...tableDefinition.globalSecondaryIndexes.map((index) => ({ TableName: this.table.tableName, GlobalSecondaryIndexName: index.indexName })),
    ];
    const usingMetrics: Record<string, cloudwatch.IMetric> = {};
    throttleSources.forEach((dimensions, source) => {
      usingMetrics[`read${source}`] = throttleEvents('ReadThrottleEvents', dimensions);
      usingMetrics[`write${source}`] = throttleEvents('WriteThrottleEvents', dimensions);
    });
    alarms.push(
      new cloudwatch.Alarm(this, 'TableThrottlesAlarm', {
        alarmDescription: 'DynamoDB throttled reads or writes of the table or an index (on-demand limits or a hot key)',
        metric: new cloudwatch.MathExpression({
          expression: Object.keys(usingMetrics).map((id) => `FILL(${id}, 0)`).join(' + '),
          usingMetrics,
          label: 'Throttle events',
          period,
        }),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    alarms.push(
      new cloudwatch.Alarm(this, 'EventsDeadLetterAlarm', {
        alarmDescription: 'Events or stream records were dead-lettered: see the events dead-letter queue and the events function logs',
        metric: this.eventsDeadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: cloudwatch.Stats.MAXIMUM, period }),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    for (const alarm of alarms) alarm.addAlarmAction(action);
    return topic;
  }
}

/** `silent` writes nothing, so the strictest filter Lambda has is as good as any. */
const applicationLogLevels: Record<ServiceLogLevel, lambda.ApplicationLogLevel> = {
  debug: lambda.ApplicationLogLevel.DEBUG,
  info: lambda.ApplicationLogLevel.INFO,
  warn: lambda.ApplicationLogLevel.WARN,
  error: lambda.ApplicationLogLevel.ERROR,
  silent: lambda.ApplicationLogLevel.FATAL,
};

function pascalCase(name: string): string {
  return `${name.charAt(0).toUpperCase()}${name.slice(1)}`;
}

/** API Gateway wants static header values as quoted literals, under a prefix naming where they go. */
function quoteHeaders(headers: Record<string, string>, prefix = ''): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [`${prefix}${name}`, `'${value}'`]));
}

/** OPTIONS answered by API Gateway itself (no Lambda, no API key), with the exact header values of docs/client-api.md#answers-cors-and-retries and docs/management-api.md. */
function addPreflight(resource: apigateway.Resource, side: Side, managementOrigin: string): void {
  const headers = quoteHeaders(corsHeaders(side, managementOrigin), 'method.response.header.');
  resource.addMethod(
    'OPTIONS',
    new apigateway.MockIntegration({
      requestTemplates: { 'application/json': '{"statusCode": 204}' },
      integrationResponses: [{ statusCode: '204', responseParameters: headers }],
    }),
    {
      authorizationType: apigateway.AuthorizationType.NONE,
      methodResponses: [{ statusCode: '204', responseParameters: Object.fromEntries(Object.keys(headers).map((name) => [name, true])) }],
    },
  );
}
