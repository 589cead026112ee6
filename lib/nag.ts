import { Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import type { Settings } from './settings';

/**
 * Every cdk-nag AwsSolutions finding this stack accepts, each with its reason.
 * Findings not acknowledged here fail `cdk synth`.
 */
export function acknowledgeNagFindings(
  stack: Stack,
  settings: Settings,
  functionRoles: IConstruct[],
  events: { consumerRole: IConstruct; deadLetterQueue: IConstruct },
): void {
  const acknowledge = (scope: IConstruct, id: string, reason: string) => Validations.of(scope).acknowledge({ id, reason });

  acknowledge(
    stack,
    'AwsSolutions-L1',
    'Functions are pinned to nodejs22.x, the runtime the bundles target (esbuild target node22) and the service is tested against; moving to a newer runtime is a deliberate, tested change.',
  );
  acknowledge(
    stack,
    'AwsSolutions-APIG2',
    'Request bodies are validated in each Lambda with zod so failures carry the spec\'s exact 400 messages; a gateway validator would answer with its own body first.',
  );
  acknowledge(
    stack,
    'AwsSolutions-APIG4',
    '/auth and /register are public by the spec (the caller is identified by app_id and license); every management route uses the API-key Lambda authorizer.',
  );
  acknowledge(
    stack,
    'AwsSolutions-COG4',
    'The spec authenticates owners with x-api-key API keys, checked by a Lambda REQUEST authorizer; there are no Cognito users.',
  );
  acknowledge(
    stack,
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
      stack,
      'AwsSolutions-APIG3',
      'WAF is optional (context enableWaf=true) because a web ACL costs a monthly fee; the stage and usage plan throttles still apply.',
    );
  }
}
