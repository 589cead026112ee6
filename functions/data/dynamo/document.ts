import type { DynamoClient } from './client';
import { convertItems, marshallItem, unmarshallItem, type Item } from './marshall';

/** An item or key written or sent: any plain object (interfaces such as ItemKey included). */
type Stored = object;

/**
 * DynamoDB's actions over plain values: the same request and answer shapes as
 * the AWS SDK's document client (`TableName`, `Key`, `Item`, ...), with every
 * item, key and expression value converted to and from attribute values.
 */

interface Expressions {
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Item;
}

export interface GetInput {
  TableName: string;
  Key: Stored;
  ConsistentRead?: boolean;
}

export interface PutInput extends Expressions {
  TableName: string;
  Item: Stored;
}

export interface UpdateInput extends Expressions {
  TableName: string;
  Key: Stored;
  UpdateExpression: string;
  ReturnValues?: 'NONE' | 'ALL_OLD' | 'UPDATED_OLD' | 'ALL_NEW' | 'UPDATED_NEW';
}

export interface DeleteInput extends Expressions {
  TableName: string;
  Key: Stored;
}

export interface QueryInput {
  TableName: string;
  IndexName?: string;
  KeyConditionExpression: string;
  FilterExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Item;
  ExclusiveStartKey?: Stored;
  Limit?: number;
  ScanIndexForward?: boolean;
  ConsistentRead?: boolean;
}

export interface ScanInput {
  TableName: string;
  ExclusiveStartKey?: Stored;
  ConsistentRead?: boolean;
}

export interface Page {
  Items?: Item[];
  LastEvaluatedKey?: Item;
}

export interface BatchGetInput {
  RequestItems: Record<string, { Keys: Stored[]; ConsistentRead?: boolean }>;
}

export interface BatchGetOutput {
  Responses?: Record<string, Item[]>;
  UnprocessedKeys?: BatchGetInput['RequestItems'];
}

export type WriteRequest = { PutRequest: { Item: Stored } } | { DeleteRequest: { Key: Stored } };

export interface BatchWriteInput {
  RequestItems: Record<string, WriteRequest[]>;
}

export interface BatchWriteOutput {
  UnprocessedItems?: BatchWriteInput['RequestItems'];
}

export type TransactItem =
  | { Put: PutInput }
  | { Update: UpdateInput }
  | { Delete: DeleteInput }
  | { ConditionCheck: Expressions & { TableName: string; Key: Stored; ConditionExpression: string } };

export interface TransactWriteInput {
  TransactItems: TransactItem[];
  ClientRequestToken?: string;
}

export class DocumentClient {
  constructor(private readonly client: DynamoClient) {}

  get(input: GetInput): Promise<{ Item?: Item }> {
    return this.call('GetItem', input);
  }

  put(input: PutInput): Promise<object> {
    return this.call('PutItem', input);
  }

  update(input: UpdateInput): Promise<{ Attributes?: Item }> {
    return this.call('UpdateItem', input);
  }

  delete(input: DeleteInput): Promise<object> {
    return this.call('DeleteItem', input);
  }

  query(input: QueryInput): Promise<Page> {
    return this.call('Query', input);
  }

  scan(input: ScanInput): Promise<Page> {
    return this.call('Scan', input);
  }

  batchGet(input: BatchGetInput): Promise<BatchGetOutput> {
    return this.call('BatchGetItem', input);
  }

  batchWrite(input: BatchWriteInput): Promise<BatchWriteOutput> {
    return this.call('BatchWriteItem', input);
  }

  transactWrite(input: TransactWriteInput): Promise<object> {
    return this.call('TransactWriteItems', input);
  }

  destroy(): void {
    this.client.destroy();
  }

  private async call<T>(operation: string, input: object): Promise<T> {
    const answer = await this.client.send(operation, convertItems(input, marshallItem));
    return convertItems(answer, unmarshallItem) as T;
  }
}
