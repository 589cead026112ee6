import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newId } from '#core/ids';
import { deliveryIds, type Delivery } from '#data/model/webhook';
import { forRequest } from '#core/deps';
import { attemptTimeoutMs, deliveryActor } from '../../functions/delivery/deliver';
import { createWebhook } from '../../functions/webhook/webhooks';
import type { Owner } from './owners';
import type { TargetPolicy } from '#core/deps';
import { startLocalDeliveryQueue, type LocalDeliveryQueue } from '../../local/webhook-queue';
import { sqsShapedQueue } from './aws-calls';
import { startTestEvents, type TestEvents } from './events';
import type { TestEnv } from './env';
import * as webhooks from '#data/webhook.repo';

export interface TestDelivery {
  queue: LocalDeliveryQueue;
  events: TestEvents;
  /** Consumes the stream, then waits until no delivery message is due within `horizonMs`. */
  settle(horizonMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The local delivery queue over the test's table, fed by the local events
 * consumer, with the delivery function's retries and the webhook routes'
 * redeliveries sent through an SQS-shaped client (so the IAM check sees them).
 * `waitScale` shortens the retry schedule; `attemptTimeoutMs` an attempt's 15 seconds.
 */
export async function startTestDelivery(
  env: TestEnv,
  options: { policy?: TargetPolicy; waitScale?: number; attemptTimeoutMs?: number; random?: () => number } = {},
): Promise<TestDelivery> {
  const queue = startLocalDeliveryQueue({
    deps: {
      table: forRequest(env.deps, undefined, deliveryActor).table,
      clock: env.deps.clock,
      logger: env.deps.logger,
      keyVault: env.deps.keyVault!,
      policy: options.policy ?? 'local',
      attemptTimeoutMs: options.attemptTimeoutMs ?? attemptTimeoutMs,
      waitScale: options.waitScale ?? 0.0001,
      random: options.random,
    },
    retryDelayMs: 50,
    wrapQueue: sqsShapedQueue,
  });
  env.webhookQueue.target = queue;
  const events = await startTestEvents(env, queue.sink);
  return {
    queue,
    events,
    settle: async (horizonMs = 0) => {
      await events.drain();
      await queue.idle(horizonMs);
    },
    stop: async () => {
      queue.stop();
      env.webhookQueue.target = undefined;
      await events.stop();
    },
  };
}

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  port: number;
  received: ReceivedRequest[];
  /** Answers each request; by default 204. */
  respond: (request: IncomingMessage, response: ServerResponse, index: number) => void;
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 that keeps what it was sent. */
export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    respond: (_request, response) => response.writeHead(204).end(),
    close: () => new Promise<void>((closed) => server.close(() => closed())),
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const index = receiver.received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() }) - 1;
      receiver.respond(request, response, index);
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}${path}`;
  const close = receiver.close;
  receiver.close = () => {
    server.closeAllConnections();
    return close();
  };
  return receiver;
}

/** Waits for `condition`, polling, for at most `timeoutMs`. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** An endpoint of the owner's app, made by the /webhook/create action; its secret is in the answer. */
export async function seedWebhook(env: TestEnv, owner: Owner, overrides: { url?: string; events?: string[] } = {}) {
  return createWebhook(env.deps, {
    app_id: owner.app_id,
    url: overrides.url ?? 'https://example.com/hooks',
    events: (overrides.events ?? ['*']) as Parameters<typeof createWebhook>[1]['events'],
    teamId: owner.team_id,
    requestId: newId(),
  });
}

/** A pending delivery of a made-up event to a new endpoint of the owner's app, written straight through the repository. */
export async function seedDelivery(env: TestEnv, owner: Owner): Promise<Delivery> {
  const webhook = await seedWebhook(env, owner);
  const at = env.deps.clock.now().toISOString();
  const delivery: Delivery = {
    delivery_id: deliveryIds.of({ webhookId: webhook.webhook_id, position: `${String(Date.parse(at)).padStart(13, '0')}-${newId().replace(/-/g, '').slice(0, 16)}` }),
    webhook_id: webhook.webhook_id,
    app_id: owner.app_id,
    event_id: `seed-${newId()}`,
    type: 'license.created',
    payload: JSON.stringify({ id: 'seed', type: 'license.created' }),
    state: 'pending',
    attempts: 0,
    settled: 0,
    last_status: null,
    last_error: null,
    next_attempt_at: at,
    created_at: at,
  };
  await webhooks.putDelivery(env.deps.table, delivery, Math.floor(Date.parse(at) / 1000) + 86400);
  return delivery;
}
