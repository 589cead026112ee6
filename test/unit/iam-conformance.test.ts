import { Template } from 'aws-cdk-lib/assertions';
import { dynamoCalls, type AwsCall } from '../support/aws-calls';
import { denials, stackIam, unusedGrants, type Statement } from '../support/iam-conformance';

/**
 * The IAM conformance check's evaluator, on a template of a few resources: the
 * hwid grants as they were before BatchGetItem and ConditionCheckItem were
 * granted, and the signing key's context conditions.
 */
const onPartitions = (...patterns: string[]) => ({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': patterns } });
const appContextOnly = {
  'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['app_id'] },
  Null: { 'kms:EncryptionContext:app_id': 'false' },
};
const table = { 'Fn::GetAtt': ['Table', 'Arn'] };
const key = { 'Fn::GetAtt': ['Key', 'Arn'] };

/** The hwid function's table grants before the fix, and the client's use of the signing key. */
const oldHwidGrants: Statement[] = [
  { Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: table, Condition: onPartitions('APP#*', 'SUB#*', 'LIC#*') },
  { Effect: 'Allow', Action: ['dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'], Resource: table, Condition: onPartitions('APP#*', 'LIC#*') },
];

function iamOf(hwid: Statement[], keyPolicyPrincipals: string[] = ['ClientRole']) {
  const template = Template.fromJSON({
    Resources: {
      Table: { Type: 'AWS::DynamoDB::Table', Properties: {} },
      Key: {
        Type: 'AWS::KMS::Key',
        Properties: {
          KeyPolicy: {
            Statement: keyPolicyPrincipals.map((role) => ({
              Effect: 'Allow',
              Principal: { AWS: { 'Fn::GetAtt': [role, 'Arn'] } },
              Action: ['kms:Encrypt', 'kms:Decrypt'],
              Resource: '*',
              Condition: appContextOnly,
            })),
          },
        },
      },
      HwidRole: { Type: 'AWS::IAM::Role', Properties: {} },
      ClientRole: { Type: 'AWS::IAM::Role', Properties: {} },
      OtherRole: { Type: 'AWS::IAM::Role', Properties: {} },
      HwidPolicy: { Type: 'AWS::IAM::Policy', Properties: { Roles: [{ Ref: 'HwidRole' }], PolicyDocument: { Statement: hwid } } },
      ClientPolicy: {
        Type: 'AWS::IAM::Policy',
        Properties: {
          Roles: [{ Ref: 'ClientRole' }],
          PolicyDocument: {
            Statement: [
              { Effect: 'Allow', Action: ['logs:CreateLogStream'], Resource: '*' },
              { Effect: 'Allow', Action: ['kms:Decrypt'], Resource: key, Condition: appContextOnly },
            ],
          },
        },
      },
    },
  });
  return stackIam(template, { hwid: 'HwidRole', client: 'ClientRole' }, { table: 'Table', signingKey: 'Key', eventBus: 'Key', deadLetterQueue: 'Key', deliveryQueue: 'Key' });
}

const ownerLookup: AwsCall = { function: 'hwid', action: 'dynamodb:BatchGetItem', resource: 'table', leadingKeys: ['APP#a1', 'LIC#K1'] };
const decrypt = (encryptionContext?: Record<string, string>): AwsCall => ({
  function: 'client',
  action: 'kms:Decrypt',
  resource: 'signingKey',
  ...(encryptionContext ? { encryptionContext } : {}),
});

describe('the IAM conformance evaluator', () => {
  it("refuses the hwid owner lookup's BatchGetItem under the old grants, naming function, action and key", () => {
    expect(denials(iamOf(oldHwidGrants), [ownerLookup])).toEqual(['hwid may not dynamodb:BatchGetItem on table key APP#a1, LIC#K1']);
  });

  it('allows it once BatchGetItem is granted on those partitions, and only on those', () => {
    const fixed = [...oldHwidGrants, { Effect: 'Allow', Action: 'dynamodb:BatchGetItem', Resource: table, Condition: onPartitions('APP#*', 'LIC#*') }];
    expect(denials(iamOf(fixed), [ownerLookup])).toEqual([]);
    expect(denials(iamOf(fixed), [{ ...ownerLookup, leadingKeys: ['APP#a1', 'TEAM#t1'] }])).toEqual(['hwid may not dynamodb:BatchGetItem on table key APP#a1, TEAM#t1']);
  });

  it('counts calls refused alike under one line', () => {
    const again = { ...ownerLookup, leadingKeys: ['LIC#K2'] };
    expect(denials(iamOf(oldHwidGrants), [ownerLookup, again])).toEqual(['hwid may not dynamodb:BatchGetItem on table key APP#a1, LIC#K1 (and 1 more calls alike)']);
  });

  it("holds KMS calls to the role's and the key's encryption-context conditions", () => {
    const iam = iamOf(oldHwidGrants);
    expect(denials(iam, [decrypt({ app_id: 'a1' })])).toEqual([]);
    expect(denials(iam, [decrypt({ app_id: 'a1', purpose: 'x' })])).toEqual(['client may not kms:Decrypt on signingKey with encryption context {"app_id":"a1","purpose":"x"}']);
    expect(denials(iam, [decrypt()])).toEqual(['client may not kms:Decrypt on signingKey']);
    expect(denials(iamOf(oldHwidGrants, ['OtherRole']), [decrypt({ app_id: 'a1' })])).toEqual([
      'the signing key\'s policy does not let client kms:Decrypt on signingKey with encryption context {"app_id":"a1"}',
    ]);
  });

  it('names every grant no call used, per action and partition pattern, and leaves the log grants alone', () => {
    const calls: AwsCall[] = [
      { function: 'hwid', action: 'dynamodb:GetItem', resource: 'table', leadingKeys: ['LIC#K1'] },
      { function: 'hwid', action: 'dynamodb:UpdateItem', resource: 'table', leadingKeys: ['LIC#K1'] },
      { function: 'hwid', action: 'dynamodb:PutItem', resource: 'table', leadingKeys: ['APP#a1'] },
      decrypt({ app_id: 'a1' }),
    ];
    expect(unusedGrants(iamOf(oldHwidGrants), calls)).toEqual([
      'hwid is granted dynamodb:GetItem on table/Table for APP#* but no call used it',
      'hwid is granted dynamodb:GetItem on table/Table for SUB#* but no call used it',
      'hwid is granted dynamodb:UpdateItem on table/Table for APP#* but no call used it',
      'hwid is granted dynamodb:PutItem on table/Table for LIC#* but no call used it',
      'hwid is granted dynamodb:DeleteItem on table/Table for APP#* but no call used it',
      'hwid is granted dynamodb:DeleteItem on table/Table for LIC#* but no call used it',
    ]);
  });
});

describe('what IAM checks for a DynamoDB request', () => {
  it('authorizes a transaction item by item, under each item action and partition', () => {
    const calls = dynamoCalls('TransactWriteItemsCommand', {
      TransactItems: [
        { Put: { Item: { pk: 'APP#a1', sk: 'HWID#h' } } },
        { Update: { Key: { pk: { S: 'LIC#K1' }, sk: { S: 'LIC' } } } },
        { ConditionCheck: { Key: { pk: 'LIC#K2', sk: 'LIC' } } },
        { Delete: { Key: { pk: 'APP#a1', sk: 'HWID#old' } } },
      ],
    });
    expect(calls.map((call) => `${call.action} ${call.leadingKeys!.join()}`)).toEqual([
      'dynamodb:PutItem APP#a1',
      'dynamodb:UpdateItem LIC#K1',
      'dynamodb:ConditionCheckItem LIC#K2',
      'dynamodb:DeleteItem APP#a1',
    ]);
  });

  it("gives a batch every item's partition and a query on an index the index's partition value", () => {
    expect(dynamoCalls('BatchGetItemCommand', { RequestItems: { t: { Keys: [{ pk: 'LIC#K', sk: 'LIC' }, { pk: 'APP#a', sk: 'APP' }, { pk: 'APP#a', sk: 'BL#ip#1' }] } } })).toEqual([
      { action: 'dynamodb:BatchGetItem', resource: 'table', leadingKeys: ['APP#a', 'LIC#K'] },
    ]);
    expect(dynamoCalls('QueryCommand', { IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': 'APP#a#LICS' } })).toEqual([
      { action: 'dynamodb:Query', resource: 'index/gsi1', leadingKeys: ['APP#a#LICS'] },
    ]);
    expect(dynamoCalls('QueryCommand', { KeyConditionExpression: '#p = :v AND begins_with(sk, :s)', ExpressionAttributeNames: { '#p': 'pk' }, ExpressionAttributeValues: { ':v': { S: 'APP#a' }, ':s': 'BL#' } })).toEqual([
      { action: 'dynamodb:Query', resource: 'table', leadingKeys: ['APP#a'] },
    ]);
  });
});
