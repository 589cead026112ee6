import { awsCallsKind, testSenderAddress, type AwsCall } from '../support/aws-calls';
import { readEvidence } from '../support/evidence';
import { denials, grantsOf, invokePermissionFindings, stackIam, unusedGrants } from '../support/iam-conformance';
import { logicalId, synthesize } from '../cdk/stack-fixture';

/**
 * Every AWS call the suite's served functions made (the local server, the
 * authorizer, the events consumer; test/support/aws-calls.ts) against the
 * synthesized template's IAM: each must be allowed by the role of the function
 * that made it, and each grant must be used by some call. DynamoDB Local and
 * the in-process KMS, EventBridge, SQS and SES ignore IAM, so this is where a
 * missing or needless grant shows before a deployment does. Both front doors
 * (clientApi) are judged: the same calls, and API Gateway's invoke permissions
 * of each stack against the routes that need them.
 */
const calls = readEvidence<AwsCall>(awsCallsKind);
// The stack sends email from the SES-shaped mailer's identity (test/support/aws-calls.ts, sesShapedMailer).
const sesIdentity = testSenderAddress.split('@')[1]!;
const variants = Object.entries({ 'clientApi=rest': {}, 'clientApi=http': { clientApi: 'http' } }).map(([name, context]) => {
  const { stack, service, template } = synthesize({ ...context, sesIdentity }, { bundle: false });
  const iam = stackIam(
    template,
    Object.fromEntries(Object.entries(service.functions).map(([fn, construct]) => [fn, logicalId(stack, construct.role)])),
    {
      table: logicalId(stack, service.table),
      signingKey: logicalId(stack, service.signingKey),
      eventBus: logicalId(stack, service.eventBus),
      deadLetterQueue: logicalId(stack, service.eventsDeadLetterQueue),
      deliveryQueue: logicalId(stack, service.webhooks.queue),
    },
    sesIdentity,
  );
  return [name, { template, iam }] as const;
});

describe('IAM conformance of the calls the whole run made', () => {
  it('recorded calls of every function that calls AWS', () => {
    const callers = new Set(calls.map((call) => call.function));
    process.stdout.write(
      `IAM conformance: ${calls.length} distinct calls of ${callers.size} functions (${[...callers].sort().join(', ')}), ${variants.map(([name, { iam }]) => `${grantsOf(iam).length} grants judged with ${name}`).join(', ')}\n`,
    );
    expect([...callers].sort()).toEqual(['app', 'authorizer', 'blacklist', 'client', 'delivery', 'events', 'hwid', 'integration', 'license', 'portal', 'subscription', 'webhook']);
  });

  describe.each(variants)('with %s', (_name, { template, iam }) => {
    it('allows every call by the role of the function that made it', () => {
      expect(denials(iam, calls)).toEqual([]);
    });

    it('grants nothing that no call used', () => {
      expect(unusedGrants(iam, calls)).toEqual([]);
    });

    it('lets API Gateway invoke each function for exactly the routes, stages and authorizers integrated with it', () => {
      expect(invokePermissionFindings(template)).toEqual([]);
    });
  });
});
