import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { forRequest, type Deps } from '#core/deps';
import { newId } from '#core/ids';
import type { KeyVault } from '#core/key-vault';
import { attemptTimeoutMs, deliveryActor } from '../functions/delivery/deliver';
import type { ServiceEvent } from '../functions/events/derive';
import { createWebhook } from '../functions/webhook/webhooks';
import { startLocalDeliveryQueue, type LocalDeliveryQueue } from '../local/webhook-queue';

export interface WebhookBench {
  queue: LocalDeliveryQueue;
  /** Delivers a burst of `amount` events to the endpoint: deliveries per second, and how far behind the last one was. */
  measure(amount: number): Promise<{ deliveries: number; seconds: number; per_s: number; lag_s: number }>;
  close(): Promise<void>;
}

/**
 * The local delivery queue of npm start with an endpoint on a loopback
 * receiver, subscribed to every event type of the owner's app: made before the
 * loads, so /auth is measured with a webhook in place.
 */
export async function startWebhookBench(deps: Deps, keyVault: KeyVault, owner: { team_id: string; app_id: string }): Promise<WebhookBench> {
  let received = 0;
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((listening) => receiver.listen(0, '127.0.0.1', listening));
  const queue = startLocalDeliveryQueue({
    deps: { table: forRequest(deps, undefined, deliveryActor).table, clock: deps.clock, logger: deps.logger, keyVault, policy: 'local', attemptTimeoutMs },
  });
  await createWebhook(
    { ...deps, keyVault, webhooks: { queue, policy: 'local' } },
    { app_id: owner.app_id, url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, events: ['*'], teamId: owner.team_id, requestId: newId() },
  );
  return {
    queue,
    async measure(amount) {
      const at = new Date().toISOString();
      const events: ServiceEvent[] = Array.from({ length: amount }, (_, index) => ({
        id: `bench-${newId()}-${index}`,
        type: 'license.created',
        app_id: owner.app_id,
        subject: `BENCH-${index}`,
        at,
        actor: 'admin',
      }));
      const before = received;
      const startedAt = performance.now();
      await queue.sink.deliver(events);
      const queuedAt = performance.now();
      for (let waited = 0; received - before < amount && waited < 120_000; waited += 20) await new Promise((wake) => setTimeout(wake, 20));
      const seconds = (performance.now() - startedAt) / 1000;
      const deliveries = received - before;
      return { deliveries, seconds: Math.round(seconds * 100) / 100, per_s: Math.round(deliveries / seconds), lag_s: Math.round((performance.now() - queuedAt) / 10) / 100 };
    },
    close: async () => {
      queue.stop();
      receiver.closeAllConnections();
      await new Promise<void>((closed) => receiver.close(() => closed()));
    },
  };
}
