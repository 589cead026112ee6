import { Lazy } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { FunctionName } from '../functions/routes';
import { ServiceApi } from './api';
import { ClientHttpApi } from './client-api';
import { DashboardSite } from './dashboard';
import { ServiceData } from './data';
import { EventsPipeline } from './events';
import { Firewall } from './firewall';
import { ServiceFunctions } from './functions';
import { Monitoring } from './monitoring';
import { acknowledgeNagFindings } from './nag';
import { PortalSite } from './portal-site';
import { WebhookDelivery } from './webhooks';
import { settingsFromProps, type LicensingServiceProps, type Settings } from './settings';

/**
 * The licensing service as one construct: the API, the table and signing key, a
 * Lambda per route group, the events pipeline, the owners' dashboard, the
 * optional web ACL and the alarms. Owners extend it through its members: routes
 * on `api`, rules on `eventBus`, their own alarms to `alarmTopic`, a custom
 * domain on `api` (docs/deployment.md, "In an existing CDK app").
 */
export class LicensingService extends Construct {
  /** The props checked, with their defaults applied. */
  readonly settings: Settings;
  readonly table: dynamodb.Table;
  /** Encrypts applications' private signing keys (docs/client-api.md, "Signed answers and offline tokens"). */
  readonly signingKey: kms.Key;
  /** The functions by name: one per route group, `authorizer`, `events`, `openapi` and the webhooks' `delivery`. */
  readonly functions: Record<FunctionName, lambda.Function>;
  readonly api: apigateway.RestApi;
  /** The HTTP API that also serves the client routes: absent unless `clientApi` is `http`. */
  readonly clientHttpApi: ClientHttpApi | undefined;
  readonly authorizer: apigateway.RequestAuthorizer;
  /** Every owner API key joins it. */
  readonly usagePlan: apigateway.UsagePlan;
  /** Every event of docs/events.md; owners add their own rules and targets. */
  readonly eventBus: events.EventBus;
  /** Stream records the consumer kept failing on, and events EventBridge kept refusing. */
  readonly eventsDeadLetterQueue: sqs.Queue;
  /** Every alarm of the service goes here; subscribe to it, or send your own alarms with `alarmAction`. */
  readonly alarmTopic: sns.Topic;
  readonly alarmAction: cloudwatch.IAlarmAction;
  /** The webhook delivery queue, its dead-letter queue and alarm (docs/webhooks.md#on-aws). */
  readonly webhooks: WebhookDelivery;
  /** Absent when the `dashboard` prop is false. */
  readonly dashboard: DashboardSite | undefined;
  /** The dashboard's URL, when it is deployed. */
  readonly dashboardUrl: string | undefined;
  /** The customers' portal; absent when the `portal` prop is false. */
  readonly portal: PortalSite | undefined;
  /** The portal's URL (its custom domain when `portalDomainName` is set), when it is deployed. */
  readonly portalUrl: string | undefined;
  /** Absent unless `enableWaf` or `cloudFrontOriginSecret` is set. */
  readonly firewall: Firewall | undefined;
  /**
   * `Access-Control-Allow-Origin` of the management routes (prop managementCorsOrigin). By
   * default the dashboard's origin, a token resolved when the dashboard exists: the functions and
   * preflights refer to the distribution, which refers only to the API's id, so there is no cycle.
   */
  readonly managementCorsOrigin: string;

  constructor(scope: Construct, id: string, props: LicensingServiceProps = {}) {
    super(scope, id);
    const settings = settingsFromProps(props);
    this.settings = settings;

    const data = new ServiceData(this, 'Data');
    this.table = data.table;
    this.signingKey = data.signingKey;
    const functions = new ServiceFunctions(this, 'Functions', { settings, data });
    this.functions = functions.functions;
    const pipeline = new EventsPipeline(this, 'Events', {
      stage: settings.stage,
      table: this.table,
      consumer: this.functions.events,
      auditRetentionDays: settings.auditRetentionDays,
    });
    this.eventBus = pipeline.eventBus;
    this.eventsDeadLetterQueue = pipeline.deadLetterQueue;
    this.managementCorsOrigin =
      settings.managementCorsOrigin ?? (settings.dashboard ? Lazy.string({ produce: () => this.dashboard!.origin }) : '*');
    functions.setManagementCorsOrigin(this.managementCorsOrigin);

    const api = new ServiceApi(this, 'Api', { settings, functions: this.functions, managementCorsOrigin: this.managementCorsOrigin });
    this.api = api.api;
    this.authorizer = api.authorizer;
    this.usagePlan = api.usagePlan;
    this.clientHttpApi = settings.clientApi === 'http' ? new ClientHttpApi(this, 'ClientApi', { settings, client: this.functions.client }) : undefined;
    this.firewall = Firewall.wanted(settings) ? new Firewall(this, 'Firewall', { settings, stage: this.api.deploymentStage }) : undefined;
    const monitoring = new Monitoring(this, 'Monitoring', {
      stage: settings.stage,
      alarmEmail: settings.alarmEmail,
      apiStage: this.api.deploymentStage,
      clientApiStage: this.clientHttpApi?.stage,
      functions: this.functions,
      table: this.table,
      deadLetterQueue: this.eventsDeadLetterQueue,
    });
    this.alarmTopic = monitoring.alarmTopic;
    this.alarmAction = monitoring.alarmAction;
    this.webhooks = new WebhookDelivery(this, 'Webhooks', {
      eventBus: this.eventBus,
      delivery: this.functions.delivery,
      routes: this.functions.webhook,
      alarmAction: this.alarmAction,
    });
    this.dashboard = settings.dashboard
      ? new DashboardSite(this, 'Dashboard', { apiUrl: this.api.url, apiOrigin: api.origin, logRetentionDays: settings.logRetentionDays })
      : undefined;
    this.dashboardUrl = this.dashboard?.url;
    this.portal = settings.portal
      ? new PortalSite(this, 'Portal', {
          apiUrl: this.api.url,
          apiOrigin: api.origin,
          logRetentionDays: settings.logRetentionDays,
          deploymentLogs: this.dashboard?.deploymentLogs,
          domain:
            settings.portalDomainName && settings.portalCertificateArn
              ? { name: settings.portalDomainName, certificate: acm.Certificate.fromCertificateArn(this, 'PortalCertificate', settings.portalCertificateArn) }
              : undefined,
        })
      : undefined;
    this.portalUrl = this.portal?.url;
    // The functions refer to the distribution (or the custom name), which refers only to the API's id: no cycle.
    if (this.portalUrl) functions.setPortalUrl(this.portalUrl);

    acknowledgeNagFindings(this, settings, Object.values(this.functions).map((fn) => fn.role!), {
      consumerRole: this.functions.events.role!,
      deadLetterQueue: this.eventsDeadLetterQueue,
    });
  }
}
