import type { EventSink } from '../../functions/events/consumer';
import type { ServiceEvent } from '../../functions/events/derive';
import { startLocalEventStream, type LocalEventStream } from '../../local/event-stream';
import type { TestEnv } from './env';

export interface TestEvents {
  /** Every event the sink received, in order (a redelivered record's events come again). */
  delivered: ServiceEvent[];
  stream: LocalEventStream;
  /** Flushes the failed /auth counts and consumes every stream record written so far. */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

/** The local consumer over the test table's stream, with no background loop: a test drains it when it wants. */
export async function startTestEvents(env: TestEnv, sink?: EventSink): Promise<TestEvents> {
  const delivered: ServiceEvent[] = [];
  const collecting: EventSink = {
    deliver: async (events) => {
      await sink?.deliver(events);
      delivered.push(...events);
    },
  };
  const stream = await startLocalEventStream({
    client: env.client,
    endpoint: env.config.dynamodbEndpoint!,
    region: env.config.region,
    tableName: env.config.tableName,
    deps: { ...env.deps, sink: collecting },
  });
  return {
    delivered,
    stream,
    drain: async () => {
      await env.deps.authFailures.flush();
      await stream.drain();
    },
    stop: () => stream.stop(),
  };
}
