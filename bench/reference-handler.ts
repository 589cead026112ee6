import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { readConfig } from '#core/config';

/**
 * The yardstick of the bundle budget: the least a Lambda on the AWS SDK does
 * before its first answer (the document client, one GetCommand, a proxy result).
 * Each function's cold start is judged against this one, measured in the same
 * run on the same machine, instead of against absolute milliseconds.
 */
const config = readConfig();
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: config.region, endpoint: config.dynamodbEndpoint }));

export async function handler(): Promise<{ statusCode: number; body: string }> {
  const { Item } = await doc.send(new GetCommand({ TableName: config.tableName, Key: { pk: 'REFERENCE', sk: 'REFERENCE' } }));
  return { statusCode: Item ? 200 : 404, body: JSON.stringify(Item ?? null) };
}
