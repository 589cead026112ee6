import type { ItemKey } from './keys';
import { readAwsCredentials, ConfigError, type Config } from '#core/config';
import { DynamoClient, type ClientLimits } from './dynamo/client';
import { DocumentClient } from './dynamo/document';
import type { Credentials } from './dynamo/sigv4';

/** The table every repository works on. */
export interface Table {
  doc: DocumentClient;
  name: string;
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

/** The credentials Lambda hands its function in the environment, read when the first request is signed. */
async function environmentCredentials(): Promise<Credentials> {
  const credentials = readAwsCredentials();
  if (!credentials) throw new ConfigError('no AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set');
  return credentials;
}

export function createDynamoClient(
  config: Pick<Config, 'region' | 'dynamodbEndpoint'>,
  limits: ClientLimits = clientLimits(config),
  credentials: Credentials | (() => Promise<Credentials>) = environmentCredentials,
): DynamoClient {
  return config.dynamodbEndpoint
    ? new DynamoClient({
        region: config.region,
        endpoint: config.dynamodbEndpoint,
        // DynamoDB Local accepts any credentials; fixed ones keep a developer's real AWS keys out of local runs.
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        limits,
      })
    : new DynamoClient({ region: config.region, credentials, limits });
}

export function createTable(client: DynamoClient, tableName: string): Table {
  return { doc: new DocumentClient(client), name: tableName };
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
    table.doc.update({
      TableName: table.name,
      Key: key,
      UpdateExpression: updateExpression,
      ExpressionAttributeValues: values,
      ...(names ? { ExpressionAttributeNames: names } : {}),
      ConditionExpression: 'attribute_exists(pk)',
    }),
  );
}

/** A put that must not overwrite: false when an item with that key exists. */
export function putNew(table: Table, item: Record<string, unknown>): Promise<boolean> {
  return conditionHeld(table.doc.put({ TableName: table.name, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
}

export async function getItem(table: Table, key: ItemKey): Promise<Record<string, unknown> | undefined> {
  const { Item } = await table.doc.get({ TableName: table.name, Key: key });
  return Item;
}

/** A transaction cancelled because another one was writing the same items: nothing was written, so a retry is safe. */
export function cancelledByConflict(error: unknown): boolean {
  return cancellationCodes(error)?.includes('TransactionConflict') ?? false;
}

/** A delete of an item that must exist: false when there was none. */
export function deleteExisting(table: Table, key: ItemKey): Promise<boolean> {
  return conditionHeld(table.doc.delete({ TableName: table.name, Key: key, ConditionExpression: 'attribute_exists(pk)' }));
}

const transientCancellationCodes = new Set(['ThrottlingError', 'TransactionConflict', 'ProvisionedThroughputExceeded', 'InternalServerError']);

/** A transaction cancelled only for passing reasons (throttling, a conflict, an internal error): a retry may succeed. */
export function cancelledTransiently(error: unknown): boolean {
  const codes = cancellationCodes(error);
  if (!codes || codes.includes('ConditionalCheckFailed')) return false;
  return codes.some((code) => code !== undefined && transientCancellationCodes.has(code));
}
