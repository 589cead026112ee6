import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * Meters the DynamoDB requests a client sends: round trips by command name
 * (`BatchGetItemCommand`, `UpdateItemCommand`, ...) and the capacity DynamoDB
 * reports consuming. Added to the client's middleware stack, so the document
 * client built on it is metered too. The tests pin round trips with it and the
 * benchmark reports both, so the two can never count differently.
 */
export interface DynamoMeter {
  /** Requests per command name since the last reset. */
  counts(): Record<string, number>;
  /** Requests sent, every attempt: the SDK's retries and the code's own (UnprocessedKeys) alike. */
  total(): number;
  /** Requests that write: PutItem, UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems. */
  writes(): number;
  /** Read and write capacity units DynamoDB reported for the answered requests. */
  readUnits(): number;
  writeUnits(): number;
  /** Items Query and Scan evaluated (their ScannedCount), before any filter dropped some. */
  itemsScanned(): number;
  reset(): void;
}

const writeCommands = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);
const capacityCommands = new Set([
  ...writeCommands,
  'GetItemCommand',
  'BatchGetItemCommand',
  'QueryCommand',
  'ScanCommand',
  'TransactGetItemsCommand',
]);

interface Capacity {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

export function meterDynamo(client: DynamoDBClient): DynamoMeter {
  let counts: Record<string, number> = {};
  let read = 0;
  let write = 0;
  let scanned = 0;

  const addCapacity = (command: string, consumed: Capacity | Capacity[] | undefined) => {
    for (const entry of [consumed ?? []].flat()) {
      if (entry.ReadCapacityUnits !== undefined || entry.WriteCapacityUnits !== undefined) {
        read += entry.ReadCapacityUnits ?? 0;
        write += entry.WriteCapacityUnits ?? 0;
      } else if (writeCommands.has(command)) {
        write += entry.CapacityUnits ?? 0;
      } else {
        read += entry.CapacityUnits ?? 0;
      }
    }
  };

  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? 'unknown';
      const input = args.input as { ReturnConsumedCapacity?: string };
      if (capacityCommands.has(command)) input.ReturnConsumedCapacity ??= 'TOTAL';
      const result = await next(args);
      const output = result.output as { ConsumedCapacity?: Capacity | Capacity[]; ScannedCount?: number };
      addCapacity(command, output.ConsumedCapacity);
      scanned += output.ScannedCount ?? 0;
      return result;
    },
    { step: 'initialize', name: 'dynamoCapacityMeter' },
  );
  // The deserialize step runs once per attempt, inside the SDK's retry loop.
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? 'unknown';
      counts[command] = (counts[command] ?? 0) + 1;
      return next(args);
    },
    { step: 'deserialize', name: 'dynamoRoundTripMeter' },
  );

  const sum = (filter: (name: string) => boolean) =>
    Object.entries(counts).reduce((total, [name, count]) => (filter(name) ? total + count : total), 0);
  return {
    counts: () => ({ ...counts }),
    total: () => sum(() => true),
    writes: () => sum((name) => writeCommands.has(name)),
    readUnits: () => read,
    writeUnits: () => write,
    itemsScanned: () => scanned,
    reset: () => {
      counts = {};
      read = 0;
      write = 0;
      scanned = 0;
    },
  };
}
