import type { EventSink } from '../functions/events/consumer';
import { createDelivery, type DeliveryDeps, type Verdict } from '../functions/delivery/deliver';
import type { DeliveryQueue } from '#core/deps';
import type { AttemptMessage } from '../functions/delivery/queue';
import { eventSource } from '../functions/events/sinks';
import { serveAs } from './serving';

/**
 * The delivery queue of `npm start`: SQS's part in memory (delays, a message
 * handed over again when its work asks for it, a dead letter after five
 * tries), around the very code the delivery function runs (functions/delivery/).
 * Events come from the local events consumer as EventBridge's rule brings
 * them on AWS. Messages waiting when the server stops are lost: this is a
 * developer's queue, not a durable one.
 */
export interface LocalDeliveryQueue extends DeliveryQueue {
  /** Where the local events consumer sends events (with the other local sinks). */
  sink: EventSink;
  /** Resolves once no message is being handled and none is due within `horizonMs`. */
  idle(horizonMs?: number): Promise<void>;
  /** Messages handled so far, and attempts' outcomes, for the benchmark. */
  readonly handled: number;
  stop(): void;
}

export interface LocalDeliveryQueueOptions {
  deps: Omit<DeliveryDeps, 'queue'>;
  /** How long a message whose work asked to be handed over again waits (SQS's visibility timeout). */
  retryDelayMs?: number;
  /** What the delivery code sends its retries through, around this queue (tests record them as SQS calls). */
  wrapQueue?: (queue: DeliveryQueue) => DeliveryQueue;
}

/** As the deployed queue's redrive policy: a message handed over this many times is given up on. */
const maxReceives = 5;

/** Messages handled at once: a batch of the deployed event source mapping; the rest wait their turn, as on a queue. */
const concurrency = 10;

export function startLocalDeliveryQueue(options: LocalDeliveryQueueOptions): LocalDeliveryQueue {
  const retryDelayMs = options.retryDelayMs ?? 6 * 60_000;
  const timers = new Map<NodeJS.Timeout, number>();
  const ready: { body: string; receives: number }[] = [];
  let running = 0;
  let handled = 0;
  let stopped = false;

  const enqueue = (body: string, delayMs: number, receives: number) => {
    if (stopped) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      ready.push({ body, receives: receives + 1 });
      next();
    }, delayMs);
    timer.unref();
    timers.set(timer, Date.now() + delayMs);
  };

  const queue: DeliveryQueue = {
    async send(message: AttemptMessage, delaySeconds: number) {
      enqueue(JSON.stringify(message), Math.max(0, delaySeconds * 1000), 0);
    },
  };
  const delivery = createDelivery({ ...options.deps, queue: options.wrapQueue ? options.wrapQueue(queue) : queue });

  function next(): void {
    while (running < concurrency && ready.length > 0) {
      const message = ready.shift()!;
      void run(message.body, message.receives).finally(next);
    }
  }

  async function run(body: string, receives: number): Promise<void> {
    running += 1;
    let verdict: Verdict = 'retry';
    try {
      verdict = await serveAs('delivery', () => delivery.process(body));
    } finally {
      running -= 1;
      handled += 1;
    }
    if (verdict === 'done') return;
    if (receives >= maxReceives) options.deps.logger.error('delivery queue message dead-lettered', { receives });
    else enqueue(body, retryDelayMs, receives);
  }

  return {
    ...queue,
    sink: {
      async deliver(events) {
        // The envelope EventBridge's rule puts on the queue: the event is its `detail`.
        for (const event of events) enqueue(JSON.stringify({ source: eventSource, 'detail-type': event.type, detail: event }), 0, 0);
      },
    },
    idle: async (horizonMs = 0) => {
      while (running > 0 || ready.length > 0 || [...timers.values()].some((due) => due <= Date.now() + horizonMs)) await new Promise((resolve) => setTimeout(resolve, 5));
    },
    get handled() {
      return handled;
    },
    stop() {
      stopped = true;
      for (const timer of timers.keys()) clearTimeout(timer);
      timers.clear();
      ready.length = 0;
    },
  };
}
