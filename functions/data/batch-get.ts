import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import type { Table } from './db';
import type { ItemKey } from './keys';
import { sleep } from './backoff';

/** DynamoDB's key size limits: a longer value cannot be the key of a stored item. */
const maxPartitionKeyBytes = 2048;
const maxSortKeyBytes = 1024;

export function isStorableKey(key: ItemKey): boolean {
  return Buffer.byteLength(key.pk, 'utf8') <= maxPartitionKeyBytes && Buffer.byteLength(key.sk, 'utf8') <= maxSortKeyBytes;
}

export function itemId(key: ItemKey): string {
  return `${key.pk}\u0000${key.sk}`;
}

export interface BatchGetOptions {
  consistentRead?: boolean;
  /** Attempts for keys DynamoDB leaves unprocessed (throttling, 16 MB limit); the waits double from `baseDelayMs`. */
  maxAttempts?: number;
  baseDelayMs?: number;
}

/** BatchGetItem's limit of keys per request. */
const keysPerRequest = 100;
/** BatchGetItem requests in flight at once. */
const parallelRequests = 4;

/**
 * Reads items by key, 100 to a BatchGetItem, retrying `UnprocessedKeys` with
 * exponential backoff and jitter. Keys too long to exist are answered absent
 * without a request (DynamoDB would reject the whole batch). Returns the found
 * items by `itemId`.
 */
export async function batchGetItems(table: Table, wanted: ItemKey[], options: BatchGetOptions = {}): Promise<Map<string, Record<string, unknown>>> {
  const { consistentRead = false, maxAttempts = 6, baseDelayMs = 20 } = options;
  const found = new Map<string, Record<string, unknown>>();
  const unique: Record<string, unknown>[] = [...new Map(wanted.filter(isStorableKey).map((key) => [itemId(key), { pk: key.pk, sk: key.sk }])).values()];
  const readChunk = async (chunk: Record<string, unknown>[]) => {
    let pending = chunk;
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > maxAttempts) throw new Error(`BatchGetItem left ${pending.length} keys unprocessed after ${maxAttempts} attempts`);
      if (attempt > 1) await sleep(baseDelayMs * 2 ** (attempt - 2) * (0.5 + Math.random()));
      const answer = await table.doc.send(
        new BatchGetCommand({ RequestItems: { [table.name]: { Keys: pending, ConsistentRead: consistentRead } } }),
      );
      for (const item of answer.Responses?.[table.name] ?? []) found.set(itemId(item as ItemKey), item);
      pending = answer.UnprocessedKeys?.[table.name]?.Keys ?? [];
    }
  };
  const chunks = Array.from({ length: Math.ceil(unique.length / keysPerRequest) }, (_, index) => unique.slice(index * keysPerRequest, (index + 1) * keysPerRequest));
  // A bulk request's keys (up to 2,000 for 1,000 licenses) are read a few batches at a time, not one after another.
  for (let start = 0; start < chunks.length; start += parallelRequests) await Promise.all(chunks.slice(start, start + parallelRequests).map(readChunk));
  return found;
}
