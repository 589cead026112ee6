import { keys, type ItemKey } from './keys';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createHash, randomUUID } from 'node:crypto';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
  type QueryCommandInput,
  type TransactWriteCommandInput,
  type UpdateCommandInput,
  type UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { backoffDefaults, backoffDelay, sleep } from './backoff';
import { cancellationCodes, isConditionFailure, withBackoff } from './retry';
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

/**
 * What became of a conditional write: its answer when its conditions held;
 * otherwise why not, as a value: each item's reason (a transaction's by
 * position; a single write's one reason is `ConditionalCheckFailed`), the item
 * that failed a single write's condition when the write asked for it
 * (`ReturnValuesOnConditionCheckFailure`), and the error itself.
 */
export type Conditional<T> = { held: true; answer: T } | ConditionFailed;

export interface ConditionFailed {
  held: false;
  reasons: (string | undefined)[];
  item?: Record<string, unknown>;
  error: unknown;
}

/**
 * Which failures a write's caller answers as an outcome: a failed condition;
 * `race`, also a write that lost to a concurrent transaction on its items (a
 * transaction cancelled by a conflict, a single write refused by a running
 * transaction); `cancellation`, any cancelled transaction.
 */
export type Failures = 'condition' | 'race' | 'cancellation';

/** Runs a conditional write and answers its outcome (`Conditional`); an error of another kind is thrown. */
export async function conditional<T>(write: Promise<T>, failures: Failures = 'condition'): Promise<Conditional<T>> {
  try {
    return { held: true, answer: await write };
  } catch (error) {
    if (isConditionFailure(error)) {
      // The old item a failed condition returns comes marshalled, even through the document client.
      const old = (error as { Item?: Parameters<typeof unmarshall>[0] }).Item;
      return { held: false, reasons: ['ConditionalCheckFailed'], ...(old ? { item: unmarshall(old) } : {}), error };
    }
    if (failures !== 'condition' && error instanceof Error && error.name === 'TransactionConflictException') return { held: false, reasons: ['TransactionConflict'], error };
    const codes = cancellationCodes(error);
    const counted =
      codes !== undefined && (codes.includes('ConditionalCheckFailed') || failures === 'cancellation' || (failures === 'race' && codes.includes('TransactionConflict')));
    if (counted) return { held: false, reasons: codes, error };
    throw error;
  }
}

/** The parts of an update a repository states (expressions.ts builds them); the table and key are given beside. */
export type UpdateParts = Omit<UpdateCommandInput, 'TableName' | 'Key'>;

/**
 * One UpdateItem on the table, carrying the writer's actor (`stampUpdate`)
 * unless `unstamped`: the writes of items that are no entity of an event
 * (deliveries, counters) and of the upgrade steps leave it as it was.
 */
export function updateItem(table: Table, key: ItemKey, parts: UpdateParts, options: { unstamped?: boolean } = {}): Promise<UpdateCommandOutput> {
  const input: UpdateCommandInput = { TableName: table.name, Key: key, ...parts };
  return table.doc.send(new UpdateCommand(options.unstamped ? input : stampUpdate(table, input)));
}

/** An update that must not create the item: false when the item is missing. */
export async function updateExisting(
  table: Table,
  key: ItemKey,
  updateExpression: string,
  values: Record<string, unknown>,
  names?: Record<string, string>,
): Promise<boolean> {
  const written = await conditional(
    updateItem(table, key, {
      UpdateExpression: updateExpression,
      ExpressionAttributeValues: values,
      ...(names ? { ExpressionAttributeNames: names } : {}),
      ConditionExpression: 'attribute_exists(pk)',
    }),
  );
  return written.held;
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
  const written = await conditional(
    table.doc.send(
      new PutCommand({ TableName: table.name, Item: item, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
    ),
  );
  if (written.held) return true;
  if (written.item === undefined) return false;
  // Loaded here, on a taken key or a retried put: importing node:util as a module costs every cold start about a millisecond.
  const { isDeepStrictEqual } = await import('node:util');
  return isDeepStrictEqual(written.item, item);
}

/** A Query's input as a repository states it; the table, and where each page starts, are the paginator's. */
export type PageInput = Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>;

export interface Page {
  items: Record<string, unknown>[];
  lastKey: Record<string, unknown> | undefined;
  /** Items the store read for the page, the ones its filter dropped included. */
  scanned: number;
}

/** One page of a query, or with `scan` of a whole-table scan (then `input` holds no key condition), from `startKey`. */
export async function readPage(table: Table, input: PageInput, startKey?: Record<string, unknown>, scan = false): Promise<Page> {
  const request = { ...input, TableName: table.name, ExclusiveStartKey: startKey };
  const page = await table.doc.send(scan ? new ScanCommand(request) : new QueryCommand(request));
  return { items: page.Items ?? [], lastKey: page.LastEvaluatedKey, scanned: page.ScannedCount ?? 0 };
}

/**
 * Every page of a query in its order, or with `scan` of a filtered
 * whole-table scan (for `npm start` and the admin CLI's upgrade steps, never a
 * request path), read until the end.
 */
export async function* pages(table: Table, input: PageInput, options: { scan?: boolean } = {}): AsyncGenerator<Record<string, unknown>[]> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await readPage(table, input, startKey, options.scan === true);
    yield page.items;
    startKey = page.lastKey;
  } while (startKey);
}

/** Every item of one partition of the `gsi1` index, in its sort order: for partitions known to stay small. */
export async function queryIndexPartition(table: Table, gsi1pk: string): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  for await (const items of pages(table, { IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': gsi1pk } })) {
    found.push(...items);
  }
  return found;
}

/**
 * Items one listing request may read before it answers what it found so far.
 * Licenses are about 0.5 KB, at most about 4.5 KB with full metadata: 2000 of
 * them are 1 to 9 query pages of 1 MB, well under a second and a few MB of
 * memory, where a rare filter over a big partition would otherwise read the
 * whole of it in one request.
 */
export const maxItemsReadPerList = 2000;

/** A listing whose query may filter: what it reads, from where, and what of it counts. */
export interface BoundedList<T> {
  query: PageInput;
  startKey?: Record<string, unknown>;
  /** Matches the page answers; one more is looked for, to know whether more follow. */
  limit: number;
  /** Items it may read in all (the ones a filter drops included) before it answers what it found. */
  readBound: number;
  /** The query's `Limit` for its `page`-th read (from 0), while `wanted` more matches are looked for. */
  pageSize: (wanted: number, page: number) => number;
  /** What of a page's items counts, in their order: all of them, a filter of its own, the licenses its entries name. */
  keep: (items: Record<string, unknown>[]) => T[] | Promise<T[]>;
}

/**
 * Where the next page starts: right after the last match answered when
 * another match was seen, at the last item read when the read bound cut the
 * page short, nowhere at the end.
 */
export type ListNext<T> = { after: T } | { key: Record<string, unknown> } | undefined;

/**
 * A listing that queries on until `limit` matches, the end, or its read bound,
 * since a filtered query page may hold few matches or none.
 */
export async function boundedList<T>(table: Table, list: BoundedList<T>): Promise<{ found: T[]; next: ListNext<T> }> {
  const found: T[] = [];
  let startKey = list.startKey;
  let unread = list.readBound;
  let page = 0;
  do {
    const wanted = list.limit + 1 - found.length;
    const read = await readPage(table, { ...list.query, Limit: Math.min(list.pageSize(wanted, page), unread) }, startKey, false);
    found.push(...(await list.keep(read.items)).slice(0, wanted));
    unread -= read.scanned;
    startKey = read.lastKey;
    page += 1;
  } while (startKey && found.length <= list.limit && unread > 0);
  const answered = found.slice(0, list.limit);
  if (found.length > list.limit) return { found: answered, next: { after: answered.at(-1)! } };
  return { found: answered, next: startKey && { key: startKey } };
}

/** One item by key; `consistentRead` for a read that must see every write before it (deciding again after a lost race). */
export async function getItem(table: Table, key: ItemKey, options: { consistentRead?: boolean } = {}): Promise<Record<string, unknown> | undefined> {
  const { Item } = await table.doc.send(new GetCommand({ TableName: table.name, Key: key, ...(options.consistentRead ? { ConsistentRead: true } : {}) }));
  return Item;
}

/** A condition as a put or a delete states it (expressions.ts `condition` writes one out). */
export type ConditionParts = Pick<UpdateCommandInput, 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>;

/**
 * One PutItem, carrying the writer's actor unless `unstamped`, under
 * `condition` when there is one; `oldOnFailure` has a failed condition return
 * the item in the way (`conditional` reads it). A put that must not overwrite
 * and may be resent is `putNew`.
 */
export async function putItem(
  table: Table,
  item: Record<string, unknown>,
  options: { condition?: ConditionParts; unstamped?: boolean; oldOnFailure?: boolean } = {},
): Promise<void> {
  await table.doc.send(
    new PutCommand({
      TableName: table.name,
      Item: options.unstamped ? item : stampItem(table, item),
      ...options.condition,
      ...(options.oldOnFailure ? { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } : {}),
    }),
  );
}

/** One DeleteItem under `condition`. A delete of an item that must exist is `deleteExisting`. */
export async function deleteItem(table: Table, key: ItemKey, condition: ConditionParts): Promise<void> {
  await table.doc.send(new DeleteCommand({ TableName: table.name, Key: key, ...condition }));
}

/**
 * A delete of an item that must exist: false when there was none. A
 * transaction, because its token makes a repeated attempt succeed where a
 * plain conditional delete would answer "there was none" for the item its own
 * first attempt removed.
 */
export async function deleteExisting(table: Table, key: ItemKey): Promise<boolean> {
  return (await conditional(transactWrite(table, [{ Delete: { TableName: table.name, Key: key, ConditionExpression: 'attribute_exists(pk)' } }]))).held;
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
    // A failed condition leaves nothing to stamp: the delete's own condition decides what that means.
    await conditional(withBackoff(() => updateItem(table, key as ItemKey, { UpdateExpression: '', ConditionExpression: 'attribute_exists(pk)' })));
  }
}
