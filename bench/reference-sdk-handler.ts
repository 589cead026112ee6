import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { readConfig } from '#core/config';

/**
 * The AWS SDK alone (the document client, one GetCommand, a proxy result):
 * not a budget's yardstick, shown beside the others so an owner sees what the
 * HTTP and validation libraries add on their own.
 */
const config = readConfig();
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: config.region, endpoint: config.dynamodbEndpoint }));

export async function handler(): Promise<{ statusCode: number; body: string }> {
  const { Item } = await doc.send(new GetCommand({ TableName: config.tableName, Key: { pk: 'REFERENCE', sk: 'REFERENCE' } }));
  return { statusCode: Item ? 200 : 404, body: JSON.stringify(Item ?? null) };
}
