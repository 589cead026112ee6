import { Stack, Token, Validations, type CfnElement } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import type { Settings } from './settings';

/**
 * Every cdk-nag AwsSolutions finding the service accepts, each with its reason, on the
 * service's own constructs only (an owner's resources beside it are judged on their own).
 * Findings not acknowledged here fail `cdk synth`.
 */
export function acknowledgeNagFindings(
  service: IConstruct,
  settings: Settings,
  functionRoles: IConstruct[],
  events: { consumerRole: IConstruct; deadLetterQueue: IConstruct },
): void {
  const acknowledge = (scope: IConstruct, id: string, reason: string) => Validations.of(scope).acknowledge({ id, reason });

  acknowledge(
    service,
    'AwsSolutions-L1',
    'Functions are pinned to nodejs22.x, the runtime the bundles target (esbuild target node22) and the service is tested against; moving to a newer runtime is a deliberate, tested change.',
  );
  acknowledge(
    service,
    'AwsSolutions-APIG2',
    'Request bodies are validated in each Lambda with zod so failures carry the exact 400 messages of docs/client-api.md; a gateway validator would answer with its own body first.',
  );
  acknowledge(
    service,
    'AwsSolutions-APIG4',
    'The client routes (/auth, /register, ...: on the REST API, and with clientApi=http on the HTTP API too) are public by design (the caller is identified by app_id and license); every management route uses the API-key Lambda authorizer.',
  );
  acknowledge(
    service,
    'AwsSolutions-COG4',
    'Owners authenticate with x-api-key API keys (docs/management-api.md), checked by a Lambda REQUEST authorizer; there are no Cognito users.',
  );
  acknowledge(
    service,
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
    'The account-wide API Gateway logging role AWS documents for execution logs; API Gateway names the log groups it writes to itself, so no narrower resource list exists.',
  );
  if (settings.tracing) {
    // On the function roles only, so a wildcard anywhere else still fails the synth.
    for (const role of functionRoles) {
      acknowledge(
        role,
        'AwsSolutions-IAM5[Resource::*]',
        'Active tracing grants xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions; the table grants name the table.',
      );
    }
  }
  acknowledge(
    events.consumerRole,
    'AwsSolutions-IAM5[Resource::*]',
    'The stream event source grants dynamodb:ListStreams, which supports no resource-level permission; reading the stream itself is granted on the table\'s stream only.',
  );
  acknowledge(
    events.deadLetterQueue,
    'AwsSolutions-SQS3',
    'This queue is the dead-letter queue of the events consumer (stream records it gave up on, events EventBridge refused); it has an alarm, not a dead-letter queue of its own.',
  );
  if (!settings.enableWaf && settings.cloudFrontOriginSecret === undefined) {
    acknowledge(
      service,
      'AwsSolutions-APIG3',
      'WAF is optional (context enableWaf=true) because a web ACL costs a monthly fee; the stage and usage plan throttles still apply.',
    );
  }
}

/**
 * CDK's LogRetention function (one per stack, its role made by CDK), which sets the retention of
 * API Gateway's execution log group: it writes its own logs with the basic execution policy and
 * may set retention on that one group only.
 */
export function acknowledgeLogRetentionFindings(stack: Stack, api: IConstruct, stage: string): void {
  const provider = stack.node.children.find((child) => /^LogRetention[0-9a-f]{32}$/.test(child.node.id));
  const role = provider?.node.tryFindChild('ServiceRole');
  if (!role) throw new Error('CDK\'s LogRetention function was not found: the execution logs\' retention has no provider');
  const acknowledge = (id: string, reason: string) => Validations.of(role).acknowledge({ id, reason });
  acknowledge('AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]', 'CDK\'s LogRetention handler role; it only writes its own logs with it.');
  acknowledge('AwsSolutions-IAM5[Resource::*]', 'CDK\'s LogRetention handler sets a 1-day retention on its own log group, whose name it learns only at run time.');
  const apiId = stack.getLogicalId((api.node.defaultChild ?? api) as CfnElement);
  acknowledge(
    `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:${named(stack.region, 'Region')}:${named(stack.account, 'AccountId')}:log-group:API-Gateway-Execution-Logs_<${apiId}>/${stage}:*]`,
    'The execution log group\'s streams, which API Gateway names itself.',
  );
}

/** cdk-nag names account and region as synthesized: concrete when the stack has them. */
function named(value: string, pseudo: string): string {
  return Token.isUnresolved(value) ? `<AWS::${pseudo}>` : value;
}

/** What a static site's findings are about (lib/static-site.ts): its bucket, its distribution and the role that deploys to them. */
interface StaticSiteParts extends IConstruct {
  bucket: IConstruct & { node: { defaultChild?: IConstruct } };
  distribution: IConstruct;
  deployment: { handlerRole: IConstruct };
}

/**
 * A static site's findings (the dashboard, the portal): public static files with no secrets,
 * deployed by CDK's own BucketDeployment. `what` names the files, `viewers` says who signs in
 * and what decides their access.
 */
export function acknowledgeStaticSiteFindings(site: StaticSiteParts, { what, viewers }: { what: string; viewers: string }): void {
  const acknowledge = (scope: IConstruct, id: string, reason: string) => Validations.of(scope).acknowledge({ id, reason });
  acknowledge(site.bucket, 'AwsSolutions-S1', `The bucket holds only ${what}, readable by its distribution alone; requests are seen at CloudFront and at the API, where they carry data.`);
  acknowledge(site.distribution, 'AwsSolutions-CFR1', viewers);
  acknowledge(site.distribution, 'AwsSolutions-CFR2', 'The distribution serves only static files; every request that reads or changes data goes to the API, which has its own throttles and optional WAF.');
  acknowledge(site.distribution, 'AwsSolutions-CFR3', 'Static files only: access logs would record page loads, never data; API access logs record every call.');
  acknowledge(
    site.distribution,
    'AwsSolutions-CFR4',
    'The cloudfront.net default certificate fixes the minimum TLS version; owners who need TLS 1.2 minimum front it with their own domain and certificate.',
  );
  const handler = Stack.of(site).node.children.find((child) => child.node.id.startsWith('Custom::CDKBucketDeployment'));
  if (!handler) throw new Error(`CDK's BucketDeployment function was not found: ${what} has no deployment`);
  acknowledge(handler, 'AwsSolutions-L1', 'CDK\'s BucketDeployment handler, whose runtime CDK picks; it runs only while a deployment copies a site\'s files.');
  const role = site.deployment.handlerRole;
  acknowledge(role, 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]', 'CDK\'s BucketDeployment handler role; it only writes its own logs with it.');
  const bucketId = Stack.of(site).getLogicalId(site.bucket.node.defaultChild as CfnElement);
  for (const finding of ['Action::s3:GetObject*', 'Action::s3:GetBucket*', 'Action::s3:List*', 'Action::s3:DeleteObject*', 'Action::s3:Abort*', `Resource::<${bucketId}.Arn>/*`, 'Resource::*']) {
    acknowledge(role, `AwsSolutions-IAM5[${finding}]`, 'CDK\'s BucketDeployment grants: copy the asset into the site\'s bucket and invalidate its distribution (CloudFront invalidations take no resource ARN).');
  }
  const { account, region } = Stack.of(site);
  acknowledge(
    role,
    `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-${named(account, 'AccountId')}-${named(region, 'Region')}/*]`,
    'CDK\'s BucketDeployment reads the site\'s files from the bootstrap asset bucket.',
  );
}
