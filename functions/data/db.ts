import { keys, type ItemKey } from './keys';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createHash, randomUUID } from 'node:crypto';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { backoffDefaults, backoffDelay, sleep } from './backoff';
import { cancelledByCondition, isConditionFailure, withBackoff } from './retry';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import type { AwsCredentialIdentityProvider } from '@smithy/types';

/** The table every repository works on. */
export interface Table {
  doc: DynamoDBDocumentClient;
  name: string;
  /**
   * The API request the writes serve (API Gateway's request id). Transactions
   * derive their ClientRequestToken from it, so a transaction sent again for the
   * same request is applied once. Unset outside requests (admin CLI, tests).
   */
  requestId?: string;
  /**
   * Who the writes are made for (`api_key:<8 hex>`, `client`, `admin`). Every
   * item written carries it as `actor`, so the table's stream tells the events
   * consumer who made each change. Unset: items are written as they are.
   */
  actor?: string;
}

/** The attribute the writer's `actor` is stored in; answers never show it (their schemas leave it out). */
export const actorAttribute = 'actor';

/** An item as `table` writes it: with the writer's actor. */
export function stampItem<T extends Record<string, unknown>>(table: Table, item: T): T {
  return table.actor === undefined ? item : { ...item, [actorAttribute]: table.actor };
}

interface UpdateInput {
  UpdateExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

/** An update as `table` sends it: it also sets the writer's actor. Stamping twice changes nothing. */
export function stampUpdate<T extends UpdateInput>(table: Table, update: T): T {
  if (table.actor === undefined || update.ExpressionAttributeNames?.['#actor'] !== undefined) return update;
  const expression = update.UpdateExpression ?? '';
  const withActor = /^SET\s/i.test(expression) ? `SET #actor = :actor, ${expression.slice(4)}` : `SET #actor = :actor ${expression}`.trimEnd();
  return {
    ...update,
    UpdateExpression: withActor,
    ExpressionAttributeNames: { ...update.ExpressionAttributeNames, '#actor': actorAttribute },
    ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':actor': table.actor },
  };
}

/** How the client gives up on DynamoDB: per attempt, and attempts in all (the SDK retries throttling, 5xx and timeouts). */
export interface ClientLimits {
  requestTimeoutMs: number;
  connectionTimeoutMs: number;
  maxAttempts: number;
}

/** Where the store is: the part of the service's settings (core/config.ts) the data layer reads. */
export interface StoreLocation {
  region: string;
  /** Unset on AWS: the region's DynamoDB. */
  dynamodbEndpoint: string | undefined;
}

/**
 * Without a request timeout a stalled connection would hold a request until the
 * Lambda's deadline; 3 s is far above DynamoDB's single-digit milliseconds yet
 * leaves room for every retry inside API Gateway's 29 s. DynamoDB Local on a
 * busy developer machine is much slower than DynamoDB, so it gets more time.
 */
export function clientLimits(config: Pick<StoreLocation, 'dynamodbEndpoint'>): ClientLimits {
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
export function credentialsOrPlaceholders(): AwsCredentialIdentityProvider {
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
  config: StoreLocation,
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

/**
 * A map keyed by what a client or an owner chose (leases by HWID, usage limits
 * by counter name) may hold the key `constructor`; the document client tells
 * plain objects by `value.constructor.name`, takes such a map for a class
 * instance and refuses it, unless told to convert class instances as maps too.
 * The one key it can neither store nor read back is `__proto__` (it builds maps
 * by assignment, which sets the prototype instead), so every route refuses that
 * one where it takes such a map or an HWID (docs/security.md#keys-chosen-by-clients-and-owners).
 */
export function createTable(client: DynamoDBClient, tableName: string): Table {
  return {
    doc: DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
    }),
    name: tableName,
  };
}

/** True when the conditional write was made, false when its condition failed; any other error is thrown. */
export async function conditionHeld(write: Promise<unknown>): Promise<boolean> {
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
      new UpdateCommand(
        stampUpdate(table, {
          TableName: table.name,
          Key: key,
          UpdateExpression: updateExpression,
          ExpressionAttributeValues: values,
          ...(names ? { ExpressionAttributeNames: names } : {}),
          ConditionExpression: 'attribute_exists(pk)',
        }),
      ),
    ),
  );
}

/**
 * A put that must not overwrite: false when an item with that key exists.
 * The SDK sends the put again after a timeout or a dropped connection, and the
 * first attempt may have been applied: the item that fails the condition is
 * then exactly the one this put wrote (new items carry fresh random ids and
 * timestamps), which counts as written, not as taken.
 */
export async function putNew(table: Table, unstamped: Record<string, unknown>): Promise<boolean> {
  const item = stampItem(table, unstamped);
  try {
    await table.doc.send(
      new PutCommand({ TableName: table.name, Item: item, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
    );
    return true;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const existing = (error as { Item?: Parameters<typeof unmarshall>[0] }).Item;
    if (existing === undefined) return false;
    // Loaded here, on a taken key or a retried put: importing node:util as a module costs every cold start about a millisecond.
    const { isDeepStrictEqual } = await import('node:util');
    return isDeepStrictEqual(unmarshall(existing), item);
  }
}

/**
 * The pages of one partition of the `gsi1` index, in its sort order, read
 * until the end; `projection` narrows what each item brings back.
 */
export async function* indexPartitionPages(
  table: Table,
  gsi1pk: string,
  projection?: { expression: string; names: Record<string, string> },
): AsyncGenerator<Record<string, unknown>[]> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.doc.send(
      new QueryCommand({
        TableName: table.name,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': gsi1pk },
        ...(projection ? { ProjectionExpression: projection.expression, ExpressionAttributeNames: projection.names } : {}),
        ExclusiveStartKey: startKey,
      }),
    );
    yield page.Items ?? [];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/**
 * The pages of a whole-table scan, filtered: for `npm start` and the admin
 * CLI's maintenance, never a request path.
 */
export async function* scanPages(
  table: Table,
  filter: { expression: string; values: Record<string, unknown>; projection?: string; names?: Record<string, string> },
): AsyncGenerator<Record<string, unknown>[]> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.doc.send(
      new ScanCommand({
        TableName: table.name,
        FilterExpression: filter.expression,
        ExpressionAttributeValues: filter.values,
        ...(filter.projection ? { ProjectionExpression: filter.projection } : {}),
        ...(filter.names ? { ExpressionAttributeNames: filter.names } : {}),
        ExclusiveStartKey: startKey,
      }),
    );
    yield page.Items ?? [];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/** Every item of one partition of the `gsi1` index, in its sort order: for partitions known to stay small. */
export async function queryIndexPartition(table: Table, gsi1pk: string): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  for await (const items of indexPartitionPages(table, gsi1pk)) found.push(...items);
  return found;
}

export async function getItem(table: Table, key: ItemKey): Promise<Record<string, unknown> | undefined> {
  const { Item } = await table.doc.send(new GetCommand({ TableName: table.name, Key: key }));
  return Item;
}

/**
 * A delete of an item that must exist: false when there was none. A
 * transaction, because its token makes a repeated attempt succeed where a
 * plain conditional delete would answer "there was none" for the item its own
 * first attempt removed.
 */
export async function deleteExisting(table: Table, key: ItemKey): Promise<boolean> {
  try {
    await transactWrite(table, [{ Delete: { TableName: table.name, Key: key, ConditionExpression: 'attribute_exists(pk)' } }]);
    return true;
  } catch (error) {
    if (cancelledByCondition(error)) return false;
    throw error;
  }
}

export type WriteRequest = NonNullable<ConstructorParameters<typeof BatchWriteCommand>[0]['RequestItems']>[string][number];

/**
 * Sends unconditional puts and deletes, 25 to a BatchWriteItem, retrying the
 * unprocessed ones with backoff. Bounded: a table that keeps throttling would
 * otherwise hold the Lambda until its deadline. `noun` names the requests in
 * the error.
 */
export async function batchWrite(table: Table, requests: readonly WriteRequest[], noun: string): Promise<void> {
  for (let start = 0; start < requests.length; start += 25) {
    let pending = requests.slice(start, start + 25);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt >= backoffDefaults.attempts) throw new Error(`BatchWriteItem left ${pending.length} ${noun} unprocessed after ${attempt} attempts`);
      if (attempt > 0) await sleep(backoffDelay(attempt));
      const answer = await table.doc.send(new BatchWriteCommand({ RequestItems: { [table.name]: pending } }));
      pending = answer.UnprocessedItems?.[table.name] ?? [];
    }
  }
}

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * At most 36 characters (DynamoDB's limit). Within one API request the same
 * items give the same token; a different request, or other items, another.
 */
function transactionToken(requestId: string, items: TransactItem[]): string {
  return createHash('sha256').update(requestId).update('\n').update(JSON.stringify(items)).digest('hex').slice(0, 36);
}

/** DynamoDB's limit of items in one transaction. */
export const maxTransactItems = 100;

/**
 * TransactWriteItems under a ClientRequestToken. DynamoDB applies a token's
 * transaction once and answers success to a repeat within 10 minutes, so the
 * SDK's retries after a timeout, and the retries here, never apply it twice.
 * A repeat that arrives while the first attempt still runs is refused with
 * TransactionInProgressException, which the SDK retries as throttling; should
 * its attempts run out first, it is retried here. Cancellations for a passing
 * reason (a conflict with another transaction, throttling) are retried with
 * backoff unless `retryCancellations` is false: the /auth hot path would
 * rather read the license again than wait.
 */
export async function transactWrite(table: Table, unstamped: TransactItem[], options: { retryCancellations?: boolean } = {}): Promise<void> {
  const items = unstamped.map((item) => stampTransactItem(table, item));
  await stampDeletedEntities(table, items);
  const token = transactionToken(table.requestId ?? randomUUID(), items);
  const send = async () => {
    await table.doc.send(new TransactWriteCommand({ TransactItems: items, ClientRequestToken: token }));
  };
  if (options.retryCancellations !== false) return withBackoff(send);
  return withBackoff(send, { ...backoffDefaults, retryable: (error) => error instanceof Error && error.name === 'TransactionInProgressException' });
}

function stampTransactItem(table: Table, item: TransactItem): TransactItem {
  if (item.Put) return { ...item, Put: { ...item.Put, Item: stampItem(table, item.Put.Item ?? {}) } };
  if (item.Update) return { ...item, Update: stampUpdate(table, item.Update) };
  return item;
}

/**
 * A deleted item leaves only its old image in the stream, which names whoever
 * wrote it last. So that a license, subscription or blacklist entry's
 * deletion names who deleted it, the item is first stamped with the deleter
 * (an update of the actor alone, which the consumer reads as no change).
 */
async function stampDeletedEntities(table: Table, items: TransactItem[]): Promise<void> {
  if (table.actor === undefined) return;
  for (const item of items) {
    const key = item.Delete?.Key;
    const entity = key && keys.entityOf(key);
    if (!key || !entity || entity.kind === 'username') continue;
    try {
      await withBackoff(() =>
        table.doc.send(
          new UpdateCommand(stampUpdate(table, { TableName: table.name, Key: key, UpdateExpression: '', ConditionExpression: 'attribute_exists(pk)' })),
        ),
      );
    } catch (error) {
      // Nothing to stamp: the delete's own condition decides what that means.
      if (!isConditionFailure(error)) throw error;
    }
  }
}
