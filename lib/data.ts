import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { tableDefinition } from '../functions/data/table';
import type { FunctionName } from '../functions/routes';
import { leadingKeyPatterns, tableAccess, type Partition } from './permissions';

/** Decrypting and encrypting require `{app_id}` as the whole encryption context. */
const appContextOnly = {
  'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['app_id'] },
  Null: { 'kms:EncryptionContext:app_id': 'false' },
};

/** What the account may do to the signing key without ever reading what it protects. */
const keyAdministration = [
  'kms:Create*', 'kms:Describe*', 'kms:Enable*', 'kms:List*', 'kms:Put*', 'kms:Update*', 'kms:Revoke*', 'kms:Disable*',
  'kms:Get*', 'kms:Delete*', 'kms:TagResource', 'kms:UntagResource', 'kms:ScheduleKeyDeletion', 'kms:CancelKeyDeletion',
];

/**
 * What the service keeps: the single table (functions/data/table.ts) and the KMS key
 * that encrypts applications' private signing keys stored in it. Both outlive the stack.
 */
export class ServiceData extends Construct {
  readonly table: dynamodb.Table;
  /** Encrypts applications' private signing keys (docs/client-api.md, "Signed answers and offline tokens"). */
  readonly signingKey: kms.Key;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: tableDefinition.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: tableDefinition.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
      stream: dynamodb.StreamViewType[tableDefinition.streamViewType],
      // Licenses and owners outlive any one deployment: deleting the stack leaves the table behind.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of tableDefinition.globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
        ...(index.projection.type === 'INCLUDE'
          ? { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: [...index.projection.attributes] }
          : { projectionType: dynamodb.ProjectionType.ALL }),
      });
    }
    this.signingKey = this.createSigningKey();
  }

  /**
   * Least privilege in the key policy itself: the account administers the key
   * but may not decrypt with it; operators (the admin CLI, through their IAM
   * rights) may only encrypt, for one application at a time; decrypting is left
   * to the roles `grantSigningKeyUse` names.
   */
  private createSigningKey(): kms.Key {
    const account = new iam.AccountRootPrincipal();
    return new kms.Key(this, 'SigningKeyEncryption', {
      description: "Encrypts applications' private Ed25519 signing keys; encryption context {app_id}",
      enableKeyRotation: true,
      // Ciphertexts in the retained table would be unreadable without it.
      removalPolicy: RemovalPolicy.RETAIN,
      policy: new iam.PolicyDocument({
        statements: [
          new iam.PolicyStatement({ sid: 'Administer', principals: [account], actions: keyAdministration, resources: ['*'] }),
          new iam.PolicyStatement({
            sid: 'OperatorsEncryptPerApplication',
            principals: [account],
            actions: ['kms:Encrypt'],
            resources: ['*'],
            conditions: appContextOnly,
          }),
        ],
      }),
    });
  }

  /** These actions (Encrypt, Decrypt) only, and only with an encryption context that names an application and nothing else. */
  grantSigningKeyUse(role: iam.Role, actions: readonly string[]): void {
    const statement = { actions: [...actions], conditions: appContextOnly };
    role.addToPolicy(new iam.PolicyStatement({ ...statement, resources: [this.signingKey.keyArn] }));
    this.signingKey.addToResourcePolicy(new iam.PolicyStatement({ ...statement, principals: [role], resources: ['*'] }));
  }

  /** The table grants of lib/permissions.ts for one function, each on the partitions it names. */
  grantTableAccess(role: iam.Role, name: FunctionName): void {
    const access = tableAccess[name];
    // LeadingKeys is the partition key of every item a request names, or of the partition a query reads.
    const onPartitions = (partitions: readonly Partition[]) => ({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': leadingKeyPatterns(partitions) },
    });
    for (const grant of access.grants) {
      role.addToPolicy(
        new iam.PolicyStatement({ actions: [...grant.actions], resources: [this.table.tableArn], conditions: onPartitions(grant.partitions) }),
      );
    }
    if (access.queriesIndexes.length > 0) {
      if (!access.indexes?.length) throw new Error(`${name} queries index partitions but names no index (lib/permissions.ts)`);
      role.addToPolicy(
        new iam.PolicyStatement({
          actions: ['dynamodb:Query'],
          resources: access.indexes.map((index) => `${this.table.tableArn}/index/${index}`),
          conditions: onPartitions(access.queriesIndexes),
        }),
      );
    }
  }
}
