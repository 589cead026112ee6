import type { DynamoClient } from '#data/dynamo/client';

/**
 * Meters the DynamoDB requests a client sends: round trips by action
 * (`BatchGetItem`, `UpdateItem`, ...) and the capacity DynamoDB reports
 * consuming. It intercepts the client, so the document client built on it is
 * metered too. The tests pin round trips with it and the
 * benchmark reports both, so the two can never count differently.
 */
export interface DynamoMeter {
  /** Requests per action since the last reset. */
  counts(): Record<string, number>;
  /** Requests sent, every attempt: the client's retries and the code's own (UnprocessedKeys) alike. */
  total(): number;
  /** Requests that write: PutItem, UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems. */
  writes(): number;
  /** Read and write capacity units DynamoDB reported for the answered requests. */
  readUnits(): number;
  writeUnits(): number;
  reset(): void;
}

const writeActions = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);
const capacityActions = new Set([
  ...writeActions,
  'GetItem',
  'BatchGetItem',
  'Query',
  'Scan',
  'TransactGetItems',
]);

interface Capacity {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

export function meterDynamo(client: DynamoClient): DynamoMeter {
  let counts: Record<string, number> = {};
  let read = 0;
  let write = 0;

  const addCapacity = (action: string, consumed: Capacity | Capacity[] | undefined) => {
    for (const entry of [consumed ?? []].flat()) {
      if (entry.ReadCapacityUnits !== undefined || entry.WriteCapacityUnits !== undefined) {
        read += entry.ReadCapacityUnits ?? 0;
        write += entry.WriteCapacityUnits ?? 0;
      } else if (writeActions.has(action)) {
        write += entry.CapacityUnits ?? 0;
      } else {
        read += entry.CapacityUnits ?? 0;
      }
    }
  };

  client.intercept('call', async (call, next) => {
    const metered = capacityActions.has(call.operation) ? { ...call, input: { ReturnConsumedCapacity: 'TOTAL', ...call.input } } : call;
    const output = await next(metered);
    addCapacity(call.operation, output.ConsumedCapacity as Capacity | Capacity[] | undefined);
    return output;
  });
  client.intercept('attempt', (call, next) => {
    counts[call.operation] = (counts[call.operation] ?? 0) + 1;
    return next(call);
  });

  const sum = (filter: (name: string) => boolean) =>
    Object.entries(counts).reduce((total, [name, count]) => (filter(name) ? total + count : total), 0);
  return {
    counts: () => ({ ...counts }),
    total: () => sum(() => true),
    writes: () => sum((name) => writeActions.has(name)),
    readUnits: () => read,
    writeUnits: () => write,
    reset: () => {
      counts = {};
      read = 0;
      write = 0;
    },
  };
}
