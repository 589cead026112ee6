import { Match } from 'aws-cdk-lib/assertions';
import type { FunctionName } from '../../functions/routes';
import { functionNames } from '../../lib/functions';
import { logicalId, synthesize, type Synthesized } from './stack-fixture';

let synth: Synthesized;

beforeAll(() => {
  synth = synthesize({}, { bundle: false });
});

type Statement = { Action: string | string[]; Principal?: unknown; Condition?: Record<string, Record<string, unknown>> };

const actionsOf = (statement: Statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]);
const usesKey = (statement: Statement) => actionsOf(statement).some((action) => ['kms:Encrypt', 'kms:Decrypt'].includes(action));

const appContextOnly = {
  'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['app_id'] },
  Null: { 'kms:EncryptionContext:app_id': 'false' },
};

function roleStatements(roleId: string): Statement[] {
  const policies = synth.template.findResources('AWS::IAM::Policy', { Properties: { Roles: Match.arrayWith([{ Ref: roleId }]) } });
  return Object.values(policies).flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

describe('the signing keys’ KMS key', () => {
  it('exists once, with rotation, and is kept when the stack goes', () => {
    synth.template.resourceCountIs('AWS::KMS::Key', 1);
    synth.template.hasResource('AWS::KMS::Key', { Properties: { EnableKeyRotation: true }, DeletionPolicy: 'Retain' });
  });

  it('may be used only by the functions that seal or open per-application secrets, each with only the actions it needs and an {app_id} encryption context', () => {
    // Signing keys: the client signs (Decrypt) and makes missing keys (Encrypt), the app group makes keys. Webhook secrets:
    // the webhook routes seal them, the delivery function opens them. Stripe secrets: the integration group does both.
    // The portal signs the license files it makes for customers.
    const uses: Partial<Record<FunctionName, string | string[]>> = {
      client: ['kms:Encrypt', 'kms:Decrypt'],
      app: 'kms:Encrypt',
      webhook: 'kms:Encrypt',
      delivery: 'kms:Decrypt',
      integration: ['kms:Encrypt', 'kms:Decrypt'],
      portal: 'kms:Decrypt',
    };
    for (const name of functionNames) {
      const roleId = logicalId(synth.stack, synth.service.functions[name].role!);
      const kmsStatements = roleStatements(roleId).filter(usesKey);
      const actions = uses[name];
      if (actions) {
        expect(kmsStatements).toEqual([
          expect.objectContaining({
            Action: actions,
            Resource: { 'Fn::GetAtt': [logicalId(synth.stack, synth.service.signingKey), 'Arn'] },
            Condition: appContextOnly,
          }),
        ]);
      } else {
        expect(kmsStatements).toEqual([]);
      }
      const environment = synth.template.findResources('AWS::Lambda::Function')[logicalId(synth.stack, synth.service.functions[name])]!.Properties
        .Environment.Variables as Record<string, unknown>;
      expect('SIGNING_KMS_KEY_ID' in environment).toBe(actions !== undefined);
    }
  });

  it('has a key policy that lets only the client, integration, portal and delivery roles decrypt, and the app role and the account only encrypt per application', () => {
    const [key] = Object.values(synth.template.findResources('AWS::KMS::Key'));
    const statements = key!.Properties.KeyPolicy.Statement as Statement[];
    const decrypting = statements.filter((statement) => actionsOf(statement).includes('kms:Decrypt'));
    const roleIds = (['client', 'integration', 'portal', 'delivery'] as const).map((name) => logicalId(synth.stack, synth.service.functions[name].role!));
    expect(decrypting.map((statement) => statement.Principal)).toEqual(roleIds.map((id) => ({ AWS: { 'Fn::GetAtt': [id, 'Arn'] } })));
    for (const statement of statements.filter(usesKey)) expect(statement.Condition).toEqual(appContextOnly);
    expect(statements.flatMap(actionsOf)).not.toContain('kms:*');
  });
});

describe('signed answers through the gateway', () => {
  it('leave the gateway exactly as signed: no compression', () => {
    const [api] = Object.values(synth.template.findResources('AWS::ApiGateway::RestApi'));
    expect(api!.Properties).not.toHaveProperty('MinimumCompressionSize');
  });
});
