import { CfnOutput, Names, Stack, type CfnElement, type StackProps } from 'aws-cdk-lib';
import { Construct, type IConstruct } from 'constructs';
import { LicensingService } from './service';
import type { LicensingServiceProps } from './settings';

export interface LicensingStackProps extends StackProps {
  settings: LicensingServiceProps;
}

/**
 * This repository's own deployment (bin/app.ts): the LicensingService construct
 * owners embed in their apps, alone in a stack, with the outputs the admin CLI
 * and docs/deployment.md name.
 */
export class LicensingStack extends Stack {
  readonly service: LicensingService;
  private renames: { children: number; pairs: (readonly [now: string, before: string])[] } | undefined;

  constructor(scope: Construct, id: string, props: LicensingStackProps) {
    super(scope, id, props);
    // "Default" leaves the service out of the logical ids (CDK hides that id), and allocateLogicalId its parts.
    const service = new LicensingService(this, 'Default', props.settings);
    this.service = service;
    new CfnOutput(this, 'ApiUrl', { value: service.api.url, description: 'Base URL of the API: every route is a path under it' });
    if (service.clientHttpApi) {
      new CfnOutput(this, 'ClientApiUrl', { value: service.clientHttpApi.url, description: 'Base URL of the client routes on the HTTP API (clientApi=http); ApiUrl serves them too' });
    }
    new CfnOutput(this, 'TableName', { value: service.table.tableName, description: 'DynamoDB table; pass it to the admin CLI' });
    new CfnOutput(this, 'UsagePlanId', { value: service.usagePlan.usagePlanId, description: 'Usage plan every owner API key joins' });
    new CfnOutput(this, 'RestApiId', { value: service.api.restApiId });
    new CfnOutput(this, 'SigningKmsKeyArn', { value: service.signingKey.keyArn, description: 'KMS key of signing keys; the admin CLI needs it as SIGNING_KMS_KEY_ID' });
    new CfnOutput(this, 'AlarmTopicArn', { value: service.alarmTopic.topicArn, description: 'Subscribe to receive alarms' });
    new CfnOutput(this, 'EventBusName', { value: service.eventBus.eventBusName, description: 'EventBridge bus of application, license, subscription and blacklist events' });
    new CfnOutput(this, 'EventsDeadLetterQueueUrl', { value: service.eventsDeadLetterQueue.queueUrl, description: 'Events and stream records that could not be delivered' });
    if (service.dashboardUrl) new CfnOutput(this, 'DashboardUrl', { value: service.dashboardUrl, description: 'The owners\' dashboard (sign in with an API key)' });
    if (service.portal) {
      new CfnOutput(this, 'PortalUrl', { value: service.portal.url, description: 'The customers\' portal: <PortalUrl>?app=<app_id>' });
      new CfnOutput(this, 'PortalDistributionDomain', { value: service.portal.distribution.distributionDomainName, description: 'Where the DNS record of portalDomainName points (CNAME or alias)' });
    }
  }

  /**
   * The logical ids of the stack as it was before the service became a construct of parts
   * (API, data, functions, events, firewall, monitoring), when every resource but the
   * dashboard's sat at the stack's top: a stack deployed then updates in place, with no
   * table, key, API or stream mapping replaced. Paths through the parts are left out, and so
   * are they from the construct ids CDK derives from a path (a stream mapping is named after
   * its table's); the rest is CDK's own naming.
   */
  protected override allocateLogicalId(element: CfnElement): string {
    const service = this.node.tryFindChild('Default');
    if (!(service instanceof LicensingService) || !element.node.scopes.includes(service)) return super.allocateLogicalId(element);
    const parts = new Set<IConstruct>(service.node.children.filter((child) => child.node.id !== 'Dashboard' && child.node.id !== 'Portal'));
    const pathBefore = (scopes: readonly IConstruct[]) => scopes.slice(scopes.indexOf(this) + 1).filter((scope) => !parts.has(scope));
    const children = [...parts].flatMap((part) => part.node.children);
    // Asked once per resource: worked out again only when the parts have gained children since.
    if (this.renames?.children !== children.length) {
      this.renames = {
        children: children.length,
        pairs: children.map((child) => [Names.nodeUniqueId(child.node), uniqueId([this, ...pathBefore(child.node.scopes)])] as const),
      };
    }
    const { pairs } = this.renames;
    const rename = (id: string) => pairs.reduce((renamed, [now, before]) => renamed.replaceAll(now, before), id);
    return uniqueId(pathBefore(element.node.scopes), rename);
  }
}

/** CDK's own unique id of a path of construct ids (Names.uniqueId), asked of the same path under a bare root. */
function uniqueId(scopes: readonly IConstruct[], rename: (id: string) => string = (id) => id): string {
  let path = new Construct(undefined as never, '');
  for (const scope of scopes) path = new Construct(path, rename(scope.node.id));
  return Names.uniqueId(path);
}
