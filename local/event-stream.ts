import { DescribeTableCommand, UpdateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type Shard,
  type ShardIteratorType,
} from '@aws-sdk/client-dynamodb-streams';
import { consumeBatch, type ConsumerDeps } from '../functions/events/consumer';
import { toStreamChange } from '../functions/events/stream-record';
import { credentialsOrPlaceholders } from '../functions/data/db';
import { tableDefinition } from '../functions/data/table';
import { serveAs } from './serving';

/**
 * The events consumer over DynamoDB Local's stream, as the event source
 * mapping runs it over DynamoDB's on AWS: the same `consumeBatch`, records in
 * shard order, a failed batch read again from its first unfinished record.
 */
export interface LocalEventStream {
  /** Resolves once every record written before the call has been consumed; throws when a batch keeps failing. */
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

/** A batch that failed this many times in a row stops a drain with an error rather than looping forever. */
const maxAttemptsPerBatch = 5;

interface ShardState {
  shard: Shard;
  iterator: string | undefined;
  /** The last record consumed; a new iterator starts after it. */
  lastSequenceNumber: string | undefined;
  closed: boolean;
  failures: number;
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
        if (!shards.has(shard.ShardId!)) shards.set(shard.ShardId!, { shard, iterator: undefined, lastSequenceNumber: undefined, closed: false, failures: 0 });
      }
      start = StreamDescription?.LastEvaluatedShardId;
    } while (start);
  };

  /** Reads one shard until it has nothing more now; the number of records read. */
  const readShard = async (state: ShardState): Promise<number> => {
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
        const outcome = await serveAs('events', () => consumeBatch(options.deps, records.map(toStreamChange)));
        if (outcome.failedSequenceNumber !== undefined) {
          state.failures += 1;
          if (state.failures >= maxAttemptsPerBatch) throw new Error(`stream batch from ${outcome.failedSequenceNumber} failed ${state.failures} times`);
          state.iterator = await iteratorOf(state, 'AT_SEQUENCE_NUMBER', outcome.failedSequenceNumber);
          return read;
        }
        state.failures = 0;
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
  const pass = async (): Promise<number> => {
    await discoverShards();
    let read = 0;
    for (const state of shards.values()) {
      if (state.closed) continue;
      const parent = state.shard.ParentShardId && shards.get(state.shard.ParentShardId);
      if (parent && !parent.closed) continue;
      read += await readShard(state);
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
        while ((await pass()) > 0 || [...shards.values()].some((state) => !state.closed && state.failures > 0)) {
          // Keep reading: more records came, or a failed batch waits to be read again.
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
