import { awsCallsKind, type AwsCall } from '../support/aws-calls';
import { readEvidence } from '../support/evidence';
import { denials, grantsOf, stackIam, unusedGrants } from '../support/iam-conformance';
import { logicalId, synthesize } from '../cdk/stack-fixture';

/**
 * Every AWS call the suite's served functions made (the local server, the
 * authorizer, the events consumer; test/support/aws-calls.ts) against the
 * synthesized template's IAM: each must be allowed by the role of the function
 * that made it, and each grant must be used by some call. DynamoDB Local and
 * the in-process KMS, EventBridge and SQS ignore IAM, so this is where a
 * missing or needless grant shows before a deployment does.
 */
const calls = readEvidence<AwsCall>(awsCallsKind);
const { stack, service, template } = synthesize({}, { bundle: false });
const iam = stackIam(
  template,
  Object.fromEntries(Object.entries(service.functions).map(([name, fn]) => [name, logicalId(stack, fn.role)])),
  {
    table: logicalId(stack, service.table),
    signingKey: logicalId(stack, service.signingKey),
    eventBus: logicalId(stack, service.eventBus),
    deadLetterQueue: logicalId(stack, service.eventsDeadLetterQueue),
    deliveryQueue: logicalId(stack, service.webhooks.queue),
  },
);

describe('IAM conformance of the calls the whole run made', () => {
  it('recorded calls of every function that calls AWS', () => {
    const callers = new Set(calls.map((call) => call.function));
    process.stdout.write(
      `IAM conformance: ${calls.length} distinct calls of ${callers.size} functions (${[...callers].sort().join(', ')}), ${grantsOf(iam).length} grants judged\n`,
    );
    expect([...callers].sort()).toEqual(['app', 'authorizer', 'blacklist', 'client', 'delivery', 'events', 'hwid', 'integration', 'license', 'subscription', 'webhook']);
  });

  it('allows every call by the role of the function that made it', () => {
    expect(denials(iam, calls)).toEqual([]);
  });

  it('grants nothing that no call used', () => {
    expect(unusedGrants(iam, calls)).toEqual([]);
  });
});
