import type { ItemKey } from './keys';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Config } from '#core/config';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import type { AwsCredentialIdentityProvider } from '@smithy/types';

/** The table every repository works on. */
export interface Table {
  doc: DynamoDBDocumentClient;
  name: string;
}

/** How the client gives up on DynamoDB: per attempt, and attempts in all (the SDK retries throttling, 5xx and timeouts). */
export interface ClientLimits {
  requestTimeoutMs: number;
  connectionTimeoutMs: number;
  maxAttempts: number;
}

/**
 * Without a request timeout a stalled connection would hold a request until the
 * Lambda's deadline; 3 s is far above DynamoDB's single-digit milliseconds yet
 * leaves room for every retry inside API Gateway's 29 s. DynamoDB Local on a
 * busy developer machine is much slower than DynamoDB, so it gets more time.
 */
export function clientLimits(config: Pick<Config, 'dynamodbEndpoint'>): ClientLimits {
  return config.dynamodbEndpoint
    ? { requestTimeoutMs: 20_000, connectionTimeoutMs: 2_000, maxAttempts: 4 }
    : { requestTimeoutMs: 3_000, connectionTimeoutMs: 1_000, maxAttempts: 4 };
}

/**
 * Against a custom endpoint (DynamoDB Local, a shared test store, a real table
 * reached through a proxy) the default credential chain still decides: real
 * credentials are used as they are, and only when the chain finds none does the
 * client sign with placeholders, which DynamoDB Local accepts.
 */
function credentialsOrPlaceholders(): AwsCredentialIdentityProvider {
  const chain = defaultProvider();
  return async () => {
    try {
      return await chain();
    } catch {
      return { accessKeyId: 'local', secretAccessKey: 'local' };
    }
  };
}

export function createDynamoClient(
  config: Pick<Config, 'region' | 'dynamodbEndpoint'>,
  limits: ClientLimits = clientLimits(config),
): DynamoDBClient {
  return new DynamoDBClient({
    region: config.region,
    maxAttempts: limits.maxAttempts,
    // Without throwOnRequestTimeout the SDK only logs a warning and keeps waiting.
    requestHandler: { requestTimeout: limits.requestTimeoutMs, connectionTimeout: limits.connectionTimeoutMs, throwOnRequestTimeout: true },
    ...(config.dynamodbEndpoint ? { endpoint: config.dynamodbEndpoint, credentials: credentialsOrPlaceholders() } : {}),
  });
}

export function createTable(client: DynamoDBClient, tableName: string): Table {
  return {
    doc: DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true },
    }),
    name: tableName,
  };
}

/** DynamoDB's answer when a condition on a single write fails. */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** A transaction cancelled by a failed condition (not by throttling or a conflict). */
export function cancelledByCondition(error: unknown): (string | undefined)[] | undefined {
  const codes = cancellationCodes(error);
  return codes?.includes('ConditionalCheckFailed') ? codes : undefined;
}

/** The per-item reason codes of a cancelled transaction; undefined for any other error. */
export function cancellationCodes(error: unknown): (string | undefined)[] | undefined {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return undefined;
  const reasons = (error as Error & { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.map((reason) => reason.Code);
}

/** True when the conditional write was made, false when its condition failed; any other error is thrown. */
async function conditionHeld(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** An update that must not create the item: false when the item is missing. */
export function updateExisting(
  table: Table,
  key: ItemKey,
  updateExpression: string,
  values: Record<string, unknown>,
  names?: Record<string, string>,
): Promise<boolean> {
  return conditionHeld(
    table.doc.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: updateExpression,
        ExpressionAttributeValues: values,
        ...(names ? { ExpressionAttributeNames: names } : {}),
        ConditionExpression: 'attribute_exists(pk)',
      }),
    ),
  );
}

/** A put that must not overwrite: false when an item with that key exists. */
export function putNew(table: Table, item: Record<string, unknown>): Promise<boolean> {
  return conditionHeld(table.doc.send(new PutCommand({ TableName: table.name, Item: item, ConditionExpression: 'attribute_not_exists(pk)' })));
}

export async function getItem(table: Table, key: ItemKey): Promise<Record<string, unknown> | undefined> {
  const { Item } = await table.doc.send(new GetCommand({ TableName: table.name, Key: key }));
  return Item;
}

/** A transaction cancelled because another one was writing the same items: nothing was written, so a retry is safe. */
export function cancelledByConflict(error: unknown): boolean {
  return cancellationCodes(error)?.includes('TransactionConflict') ?? false;
}

/** A delete of an item that must exist: false when there was none. */
export function deleteExisting(table: Table, key: ItemKey): Promise<boolean> {
  return conditionHeld(table.doc.send(new DeleteCommand({ TableName: table.name, Key: key, ConditionExpression: 'attribute_exists(pk)' })));
}

const transientCancellationCodes = new Set(['ThrottlingError', 'TransactionConflict', 'ProvisionedThroughputExceeded', 'InternalServerError']);

/** A transaction cancelled only for passing reasons (throttling, a conflict, an internal error): a retry may succeed. */
export function cancelledTransiently(error: unknown): boolean {
  const codes = cancellationCodes(error);
  if (!codes || codes.includes('ConditionalCheckFailed')) return false;
  return codes.some((code) => code !== undefined && transientCancellationCodes.has(code));
}
