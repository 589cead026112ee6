import { RemovalPolicy } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as apigatewayv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { routes, sideOf } from '../functions/routes';
import { pascalCase } from './functions';
import type { Settings } from './settings';

/** Every client route of the route table: the HTTP API serves each as it is added there. */
const clientRoutes = routes.filter((route) => sideOf(route.group) === 'client').map((route) => route.path);

/** POST, and OPTIONS for the preflight the client function answers itself, as it does behind the local server. */
const clientMethods = [apigatewayv2.HttpMethod.POST, apigatewayv2.HttpMethod.OPTIONS] as const;

/**
 * The client function behind every route, in payload format 1.0: the REST proxy event its code
 * already reads. Its invoke permissions are made per route and method (ClientHttpApi), not here:
 * CDK's HttpLambdaIntegration would allow every stage and method of the route.
 */
class ClientFunctionIntegration extends apigatewayv2.HttpRouteIntegration {
  constructor(private readonly handler: lambda.IFunction) {
    super('ClientFunctionIntegration');
  }

  bind(): apigatewayv2.HttpRouteIntegrationConfig {
    return {
      type: apigatewayv2.HttpIntegrationType.AWS_PROXY,
      uri: this.handler.functionArn,
      payloadFormatVersion: apigatewayv2.PayloadFormatVersion.VERSION_1_0,
    };
  }
}

export interface ClientHttpApiProps {
  settings: Pick<Settings, 'stage' | 'clientRateLimit' | 'clientBurstLimit' | 'logRetentionDays'>;
  client: lambda.IFunction;
}

/**
 * `clientApi=http`: an HTTP API beside the REST API, serving the client routes alone, on a stage
 * named like the REST API's, throttled per route like the REST API's client methods, with JSON
 * access logs. No CORS configuration: with one API Gateway would replace the function's CORS
 * headers on every answer, so the function answers preflights and sets its headers itself.
 */
export class ClientHttpApi extends Construct {
  readonly api: apigatewayv2.HttpApi;
  readonly stage: apigatewayv2.HttpStage;

  constructor(scope: Construct, id: string, { settings, client }: ClientHttpApiProps) {
    super(scope, id);
    const accessLogs = new logs.LogGroup(this, 'ClientHttpApiAccessLogs', {
      retention: settings.logRetentionDays as logs.RetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.api = new apigatewayv2.HttpApi(this, 'ClientHttpApi', {
      apiName: `licensing-${settings.stage}-client`,
      description: 'Software licensing service: the client routes',
      createDefaultStage: false,
    });
    this.stage = new apigatewayv2.HttpStage(this, 'ClientHttpApiStage', {
      httpApi: this.api,
      stageName: settings.stage,
      autoDeploy: true,
      // The stage's default route settings: each route gets this budget, as each REST client method does.
      throttle: { rateLimit: settings.clientRateLimit, burstLimit: settings.clientBurstLimit },
      accessLogSettings: {
        destination: new apigatewayv2.LogGroupLogDestination(accessLogs),
        // An HTTP API has no execution logs: the integration's error is logged here. Never bodies.
        format: apigateway.AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            requestTime: '$context.requestTime',
            routeKey: '$context.routeKey',
            status: '$context.status',
            protocol: '$context.protocol',
            responseLength: '$context.responseLength',
            integrationError: '$context.integrationErrorMessage',
          }),
        ),
      },
    });

    const integration = new ClientFunctionIntegration(client);
    for (const path of clientRoutes) {
      for (const method of clientMethods) {
        new apigatewayv2.HttpRoute(this, `ClientHttpApi${method}${pascalPath(path)}`, {
          httpApi: this.api,
          routeKey: apigatewayv2.HttpRouteKey.with(path, method),
          integration,
        });
        client.addPermission(`ClientHttpApiInvoke${method}${pascalPath(path)}`, {
          scope: this,
          principal: new iam.ServicePrincipal('apigateway.amazonaws.com'),
          sourceArn: this.api.arnForExecuteApi(method, path, settings.stage),
        });
      }
    }
  }

  /** `https://<api id>.execute-api.<region>.<domain>/<stage>/`: the base URL of the client routes, like the REST API's. */
  get url(): string {
    return `${this.stage.url}/`;
  }
}

/** `/license-file/return` → `LicenseFileReturn`: a route's part of a construct id. */
function pascalPath(path: string): string {
  return path.split(/[^A-Za-z0-9]+/).filter(Boolean).map(pascalCase).join('');
}
