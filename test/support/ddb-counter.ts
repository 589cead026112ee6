import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * Counts the DynamoDB requests a client sends, by command name
 * (`BatchGetItemCommand`, `UpdateItemCommand`, ...). Added to the client's
 * middleware stack, so the document client built on it is counted too. One
 * count per command sent: the SDK's own retries of a throttled request are not
 * round trips of ours, and the code's retries (UnprocessedKeys) are.
 */
export interface DynamoCallCounter {
  /** Requests per command name since the last reset. */
  counts(): Record<string, number>;
  total(): number;
  /** Requests that write: PutItem, UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems. */
  writes(): number;
  reset(): void;
}

const writeCommands = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);

export function countDynamoCalls(client: DynamoDBClient): DynamoCallCounter {
  let counts: Record<string, number> = {};
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? 'unknown';
      counts[name] = (counts[name] ?? 0) + 1;
      return next(args);
    },
    { step: 'initialize', name: 'dynamoCallCounter' },
  );
  const sum = (filter: (name: string) => boolean) =>
    Object.entries(counts).reduce((total, [name, count]) => (filter(name) ? total + count : total), 0);
  return {
    counts: () => ({ ...counts }),
    total: () => sum(() => true),
    writes: () => sum((name) => writeCommands.has(name)),
    reset: () => {
      counts = {};
    },
  };
}
