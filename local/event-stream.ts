import { DescribeTableCommand, UpdateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
  type Shard,
  type ShardIteratorType,
} from '@aws-sdk/client-dynamodb-streams';
import { consumeRecords, type ConsumerDeps } from '../functions/events/consumer';
import { credentialsOrPlaceholders } from '../functions/data/db';
import { tableDefinition } from '../functions/data/table';
import { serveAs } from './serving';

/**
 * The events consumer over DynamoDB Local's stream, as the event source
 * mapping runs it over DynamoDB's on AWS: the same `consumeRecords`, records in
 * shard order, a failed record read again (with what follows it) until it is
 * done or has failed `attemptsPerRecord` times, then logged as given up and
 * passed over, so one record that can never be done stops nothing else
 * (on AWS it goes to the on-failure destination after the mapping's retries).
 */
export interface LocalEventStream {
  /** Resolves once every record written before the call has been consumed or given up, without the pauses the background loop makes between attempts. */
  drain(): Promise<void>;
  /** Stream records read so far (also those that announce nothing). */
  readonly recordsRead: number;
  stop(): Promise<void>;
}

export interface LocalEventStreamOptions {
  /** The table's store (DynamoDB Local, or a store that has the Streams API). */
  client: DynamoDBClient;
  endpoint: string;
  region: string;
  tableName: string;
  deps: ConsumerDeps;
  /** How often the background loop polls; undefined runs no loop (a test drains by hand). */
  pollMs?: number;
}

/**
 * Attempts at a record before it is given up. The background loop pauses
 * between them, doubling from `pollMs`: with 500 ms a record is given up
 * about 8 s after its first failure, time enough for a busy store to recover.
 */
export const attemptsPerRecord = 5;

interface ShardState {
  shard: Shard;
  iterator: string | undefined;
  /** The last record consumed or given up; a new iterator starts after it. */
  lastSequenceNumber: string | undefined;
  closed: boolean;
  /** The record that failed last, how often in a row, and when the background loop tries it again. */
  failing: { sequenceNumber: string; attempts: number; retryAt: number } | undefined;
}

async function streamArnOf(client: DynamoDBClient, tableName: string): Promise<string> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  if (Table?.LatestStreamArn && Table.StreamSpecification?.StreamEnabled) return Table.LatestStreamArn;
  // A table kept in DATA_DIR from before events existed: give it the stream the definition has.
  const { TableDescription } = await client.send(
    new UpdateTableCommand({ TableName: tableName, StreamSpecification: { StreamEnabled: true, StreamViewType: tableDefinition.streamViewType } }),
  );
  if (!TableDescription?.LatestStreamArn) throw new Error(`table ${tableName} has no stream`);
  return TableDescription.LatestStreamArn;
}

export async function startLocalEventStream(options: LocalEventStreamOptions): Promise<LocalEventStream> {
  const streams = new DynamoDBStreamsClient({ region: options.region, endpoint: options.endpoint, credentials: credentialsOrPlaceholders() });
  const streamArn = await streamArnOf(options.client, options.tableName);
  const shards = new Map<string, ShardState>();
  let recordsRead = 0;
  let stopped = false;

  const iteratorOf = async (state: ShardState, type: ShardIteratorType, sequenceNumber?: string) => {
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: state.shard.ShardId!, ShardIteratorType: type, SequenceNumber: sequenceNumber }),
    );
    return ShardIterator;
  };

  const discoverShards = async () => {
    let start: string | undefined;
    do {
      const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: start }));
      for (const shard of StreamDescription?.Shards ?? []) {
        if (!shards.has(shard.ShardId!)) shards.set(shard.ShardId!, { shard, iterator: undefined, lastSequenceNumber: undefined, closed: false, failing: undefined });
      }
      start = StreamDescription?.LastEvaluatedShardId;
    } while (start);
  };

  /**
   * A record failed again: the records before it are done; it is read again
   * later, or, at its last attempt, logged and passed over as AWS's
   * on-failure destination would take it. Answers whether the shard goes on now.
   */
  const recordFailed = async (state: ShardState, records: readonly _Record[], sequenceNumber: string): Promise<boolean> => {
    const index = Math.max(0, records.findIndex((record) => record.dynamodb?.SequenceNumber === sequenceNumber));
    recordsRead += index;
    if (index > 0) state.lastSequenceNumber = records[index - 1]!.dynamodb!.SequenceNumber;
    const attempts = state.failing?.sequenceNumber === sequenceNumber ? state.failing.attempts + 1 : 1;
    if (attempts < attemptsPerRecord) {
      state.failing = { sequenceNumber, attempts, retryAt: Date.now() + (options.pollMs ?? 0) * 2 ** (attempts - 1) };
      state.iterator = await iteratorOf(state, 'AT_SEQUENCE_NUMBER', sequenceNumber);
      return false;
    }
    const record = records[index];
    options.deps.logger.error('stream record given up', { sequence_number: sequenceNumber, event_id: record?.eventID, event_name: record?.eventName, attempts });
    state.failing = undefined;
    state.lastSequenceNumber = sequenceNumber;
    recordsRead += 1;
    state.iterator = await iteratorOf(state, 'AFTER_SEQUENCE_NUMBER', sequenceNumber);
    return true;
  };

  /** Reads one shard until it has nothing more now; the number of records read. */
  const readShard = async (state: ShardState, retryEarly: boolean): Promise<number> => {
    if (!retryEarly && state.failing && Date.now() < state.failing.retryAt) return 0;
    state.iterator ??= state.lastSequenceNumber
      ? await iteratorOf(state, 'AFTER_SEQUENCE_NUMBER', state.lastSequenceNumber)
      : await iteratorOf(state, 'TRIM_HORIZON');
    let read = 0;
    while (state.iterator) {
      let answer;
      try {
        answer = await streams.send(new GetRecordsCommand({ ShardIterator: state.iterator, Limit: 1000 }));
      } catch (error) {
        if (error instanceof Error && error.name === 'ExpiredIteratorException') {
          state.iterator = undefined;
          return read;
        }
        throw error;
      }
      const records = answer.Records ?? [];
      if (records.length > 0) {
        const outcome = await serveAs('events', () => consumeRecords(options.deps, records));
        if (outcome.failedSequenceNumber !== undefined) {
          const before = recordsRead;
          const goesOn = await recordFailed(state, records, outcome.failedSequenceNumber);
          read += recordsRead - before;
          if (goesOn) continue;
          return read;
        }
        state.failing = undefined;
        state.lastSequenceNumber = records.at(-1)!.dynamodb!.SequenceNumber;
        recordsRead += records.length;
        read += records.length;
      }
      if (!answer.NextShardIterator) {
        state.closed = true;
        state.iterator = undefined;
        return read;
      }
      state.iterator = answer.NextShardIterator;
      if (records.length === 0) return read;
    }
    return read;
  };

  /** One pass over every shard, parents before their children; the number of records read. */
  const pass = async (retryEarly = false): Promise<number> => {
    await discoverShards();
    let read = 0;
    for (const state of shards.values()) {
      if (state.closed) continue;
      const parent = state.shard.ParentShardId && shards.get(state.shard.ParentShardId);
      if (parent && !parent.closed) continue;
      read += await readShard(state, retryEarly);
    }
    return read;
  };

  // Passes never overlap: the loop and drains take turns.
  let turn: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const result = turn.then(work);
    turn = result.catch(() => undefined);
    return result;
  };

  let timer: NodeJS.Timeout | undefined;
  const loop = () => {
    if (stopped || options.pollMs === undefined) return;
    timer = setTimeout(() => {
      exclusive(pass)
        .catch((error: unknown) =>
          options.deps.logger.error('local event stream failed', { error_message: error instanceof Error ? error.message : String(error) }),
        )
        .finally(loop);
    }, options.pollMs);
  };
  loop();

  return {
    // DynamoDB Local puts a write's record on the stream before it answers the write: a pass that reads nothing has seen every earlier write.
    drain: () =>
      exclusive(async () => {
        while ((await pass(true)) > 0 || [...shards.values()].some((state) => !state.closed && state.failing !== undefined)) {
          // Keep reading: more records came, or a failed record waits to be read again.
        }
      }),
    get recordsRead() {
      return recordsRead;
    },
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await turn;
      streams.destroy();
    },
  };
}
