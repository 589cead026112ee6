import type { EventSink } from '../../functions/events/consumer';
import { eventBridgeSink } from '../../functions/events/sinks';
import type { ServiceEvent } from '../../functions/events/derive';
import { startLocalEventStream, type LocalEventStream } from '../../local/event-stream';
import { eventClients } from './aws-calls';
import type { TestEnv } from './env';

export interface TestEvents {
  /** Every event the sink received, in order (a redelivered record's events come again). */
  delivered: ServiceEvent[];
  stream: LocalEventStream;
  /** Flushes the failed /auth counts and consumes every stream record written so far. */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The local consumer over the test table's stream, with no background loop: a test drains it when it wants.
 * Events go to `sink` if given, then through the deployed sink to an EventBridge and a dead-letter queue
 * answered in the process (test/support/aws-calls.ts), which refuses the entries `refuse` names.
 */
export async function startTestEvents(
  env: TestEnv,
  sink?: EventSink,
  refuse?: Parameters<typeof eventClients>[0],
): Promise<TestEvents & { deadLettered: ServiceEvent[] }> {
  const delivered: ServiceEvent[] = [];
  const deadLettered: ServiceEvent[] = [];
  const { bus, sqs } = eventClients(refuse, (body) => deadLettered.push((JSON.parse(body) as { event: ServiceEvent }).event));
  const deployed = eventBridgeSink({ bus, sqs, busName: 'licensing-test', deadLetterQueueUrl: 'https://sqs.local/dead-letters', logger: env.deps.logger });
  const collecting: EventSink = {
    deliver: async (events) => {
      await sink?.deliver(events);
      await deployed.deliver(events);
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
    deadLettered,
    stream,
    drain: async () => {
      await env.deps.authFailures.flush();
      await stream.drain();
    },
    stop: () => stream.stop(),
  };
}
