import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DecryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { readConfig } from '#core/config';

/**
 * The second yardstick (`bundles_reference_kms`): the DynamoDB reference
 * handler plus a KMS client that sends one Decrypt, as a signing function's
 * first signed answer does. Bundles that carry the KMS client are judged
 * against this one.
 */
const config = readConfig();
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: config.region, endpoint: config.dynamodbEndpoint }));
const kms = new KMSClient({ region: config.region, endpoint: config.kmsEndpoint });

export async function handler(): Promise<{ statusCode: number; body: string }> {
  await kms.send(new DecryptCommand({ KeyId: config.signingKmsKeyId, CiphertextBlob: Buffer.alloc(48, 1), EncryptionContext: { app_id: 'reference' } }));
  const { Item } = await doc.send(new GetCommand({ TableName: config.tableName, Key: { pk: 'REFERENCE', sk: 'REFERENCE' } }));
  return { statusCode: Item ? 200 : 404, body: JSON.stringify(Item ?? null) };
}
