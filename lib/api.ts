import { Duration, Names, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as xray from 'aws-cdk-lib/aws-xray';
import { Construct } from 'constructs';
import { corsHeaders } from '../functions/core/http/middleware';
import { groups, inboundRoutes, needsApiKey, openApiPath, routes, sideOf, type FunctionName, type Group, type Side } from '../functions/routes';
import { gatewayResponses } from './gateway-responses';
import { acknowledgeLogRetentionFindings } from './nag';
import type { Settings } from './settings';

/** The header the authorizer reads, and the identity source API Gateway checks and caches on. */
export const apiKeyHeader = 'x-api-key';

export interface ServiceApiProps {
  settings: Settings;
  functions: Record<FunctionName, lambda.IFunction>;
  /** `Access-Control-Allow-Origin` of the management routes' preflights. */
  managementCorsOrigin: string;
}

/**
 * The REST API: every route of functions/routes.ts as a POST on its group's
 * Lambda (management routes behind the API-key authorizer and the usage plan),
 * preflights answered by API Gateway itself, GET /openapi.json, and the
 * answers API Gateway gives by itself in the service's own error shapes.
 */
export class ServiceApi extends Construct {
  readonly api: apigateway.RestApi;
  readonly authorizer: apigateway.RequestAuthorizer;
  /** Every owner API key joins it (the admin CLI adds them). */
  readonly usagePlan: apigateway.UsagePlan;

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);
    const { settings, functions } = props;
    this.authorizer = new apigateway.RequestAuthorizer(this, 'ApiKeyAuthorizer', {
      handler: functions.authorizer,
      identitySources: [apigateway.IdentitySource.header(apiKeyHeader)],
      resultsCacheTtl: Duration.seconds(settings.authorizerCacheTtlSeconds),
    });
    this.api = this.createApi(settings);

    const integrations = new Map<Group, apigateway.LambdaIntegration>(
      groups.map((group) => [group, new apigateway.LambdaIntegration(functions[group], { allowTestInvoke: false })]),
    );
    for (const route of routes) {
      const side = sideOf(route.group);
      const resource = this.api.root.resourceForPath(route.path);
      resource.addMethod(
        'POST',
        integrations.get(route.group)!,
        needsApiKey(route) ? { authorizer: this.authorizer, authorizationType: apigateway.AuthorizationType.CUSTOM, apiKeyRequired: true } : {},
      );
      // The customer portal's routes take a customer's token in a header, never a cookie: any origin may call them.
      addPreflight(resource, side, route.group === 'portal' ? '*' : props.managementCorsOrigin);
    }
    // Another service's calls (Stripe's events): no authorizer, no API key, no preflight (no browser calls them);
    // the group verifies the caller's signature, and the stage gives the method a throttle of its own (createApi).
    for (const route of inboundRoutes) {
      this.api.root.resourceForPath(route.path).addMethod('POST', integrations.get(route.group)!, { authorizationType: apigateway.AuthorizationType.NONE });
    }
    // Public like the route list itself: no authorizer, no API key; the stage's throttle still applies.
    this.api.root
      .resourceForPath(openApiPath)
      .addMethod('GET', new apigateway.LambdaIntegration(functions.openapi, { allowTestInvoke: false }), { authorizationType: apigateway.AuthorizationType.NONE });

    // Gateway responses are API-wide, so one header set serves both sides: the client routes' exact values (docs/client-api.md).
    // Browsers read Access-Control-Allow-Headers only on preflights, which answer per side (addPreflight).
    // `*` also lets the dashboard read a gateway's 401, 403 or 429 on a management route.
    const gatewayCors = quoteHeaders(corsHeaders('client', '*'));
    for (const response of gatewayResponses) {
      this.api.addGatewayResponse(`Gateway${response.type}`, {
        type: apigateway.ResponseType.of(response.type),
        statusCode: response.statusCode,
        responseHeaders: { ...gatewayCors, ...quoteHeaders(response.headers ?? {}) },
        templates: response.body ? { 'application/json': JSON.stringify(response.body) } : undefined,
      });
    }

    this.usagePlan = this.api.addUsagePlan('OwnerUsagePlan', {
      name: `licensing-${settings.stage}-owners`,
      description: 'Throttles and meters each owner; the authorizer names the owner key of a request.',
      throttle: { rateLimit: settings.managementRateLimit, burstLimit: settings.managementBurstLimit },
      quota: settings.managementQuotaPerDay > 0 ? { limit: settings.managementQuotaPerDay, period: apigateway.Period.DAY } : undefined,
      apiStages: [{ api: this.api, stage: this.api.deploymentStage }],
    });
  }

  /** `https://<api id>.execute-api.<region>.<domain>`: where browsers send the API's requests. */
  get origin(): string {
    const stack = Stack.of(this);
    return `https://${this.api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}`;
  }

  private createApi(settings: Settings): apigateway.RestApi {
    const accessLogs = new logs.LogGroup(this, 'ApiAccessLogs', {
      retention: settings.logRetentionDays as logs.RetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const clientThrottle = { throttlingRateLimit: settings.clientRateLimit, throttlingBurstLimit: settings.clientBurstLimit };
    const methodOptions: Record<string, apigateway.MethodDeploymentOptions> = {};
    for (const route of routes) {
      // The portal's routes have no API key, so no usage plan: the stage throttles them as it throttles client routes.
      if (sideOf(route.group) === 'client' || route.group === 'portal') methodOptions[`${route.path}/POST`] = clientThrottle;
    }
    for (const route of inboundRoutes) {
      methodOptions[`${route.path}/POST`] = { throttlingRateLimit: settings.stripeWebhookRateLimit, throttlingBurstLimit: settings.stripeWebhookBurstLimit };
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
    acknowledgeLogRetentionFindings(Stack.of(this), api, settings.stage);
    if (settings.tracing) traceSampling(this, api, settings);

    // RestApi always adds an "Endpoint" output; the owner's stack decides its outputs.
    api.node.tryRemoveChild('Endpoint');
    return api;
  }
}

/**
 * X-Ray's default rule records the first request each second and 5 % of the rest: at list prices that
 * was $0.25 of a million `/auth` requests' $5.16 (docs/performance.md#cost-per-million-requests). This
 * rule, matched before the default, records `tracingSampleRate` of the stage's requests and keeps no
 * reservoir, so the traces a million requests cost do not depend on how they spread over the seconds.
 * API Gateway makes the decision for the stage; the functions (active tracing) follow the trace header
 * it passes on.
 */
function traceSampling(scope: Construct, api: apigateway.RestApi, settings: Settings): void {
  const rule = new xray.CfnSamplingRule(scope, 'TraceSampling');
  rule.samplingRule = {
    // Sampling rule names are unique per account and Region, at most 32 characters.
    ruleName: Names.uniqueResourceName(rule, { maxLength: 32 }),
    // Evaluated in ascending order; the default rule is 10000. An owner's own rule with a smaller number wins.
    priority: 9000,
    fixedRate: settings.tracingSampleRate,
    reservoirSize: 0,
    // API Gateway names a stage's requests `<api name>/<stage>`.
    serviceName: `${api.restApiName}/${settings.stage}`,
    serviceType: 'AWS::ApiGateway::Stage',
    resourceArn: api.deploymentStage.stageArn,
    host: '*',
    httpMethod: '*',
    urlPath: '*',
    version: 1,
  };
}

/** API Gateway wants static header values as quoted literals, under a prefix naming where they go. */
function quoteHeaders(headers: Record<string, string>, prefix = ''): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [`${prefix}${name}`, `'${value}'`]));
}

/** OPTIONS answered by API Gateway itself (no Lambda, no API key), with the documented exact header values. */
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
      methodResponses: [{ statusCode: '204', responseParameters: Object.fromEntries(Object.entries(headers).map(([name]) => [name, true])) }],
    },
  );
}
