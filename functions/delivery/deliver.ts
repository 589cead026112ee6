import { createHash } from 'node:crypto';
import { Webhook as Signer } from 'standardwebhooks';
import { describeError, type Logger } from '#core/logger';
import type { KeyVault } from '#core/key-vault';
import type { Table } from '#data/db';
import { deliveryIds, type AttemptOutcome, type DeliveryRef, type EndpointChange, type Webhook } from '#data/model/webhook';
import type { Clock } from '#shared/clock';
import type { DeliveryQueue, TargetPolicy } from '#core/deps';
import { attemptMessageSchema, eventMessageSchema, type AttemptMessage } from './queue';
import { attemptLeaseMs, deliveryRetentionSeconds, disableAfterFailedDeliveries, disableAfterFailingMs, waitAfter } from './schedule';
import { postOnce } from './targets';
import * as webhooks from '#data/webhook.repo';

export interface DeliveryDeps {
  table: Table;
  clock: Clock;
  logger: Logger;
  /** Decrypts endpoints' secrets (KMS on AWS, the local master key locally). */
  keyVault: KeyVault;
  queue: DeliveryQueue;
  policy: TargetPolicy;
  /** 15 seconds; tests shorten it. */
  attemptTimeoutMs: number;
  random?: () => number;
  /**
   * Multiplies the retry schedule's waits: tests and the benchmark shorten
   * them. Only code running outside Lambda passes it; the delivery function
   * never does, so the deployed schedule is always the documented one.
   */
  waitScale?: number;
}

/** `done`: the message's work is finished (or was done before); `retry`: the queue must hand it over again later. */
export type Verdict = 'done' | 'retry';

export const attemptTimeoutMs = 15_000;

/** Who the delivery function's writes are recorded as: an endpoint it disables names no owner. */
export const deliveryActor = 'service';

/** Whether an endpoint listens to events of `type`. */
export const subscribes = (webhook: Pick<Webhook, 'events'>, type: string): boolean => webhook.events.includes('*') || webhook.events.includes(type);

/** Where one event's delivery sorts in an endpoint's log: by the event's time, then by its id. */
function positionOf(eventId: string, at: string): string {
  return `${String(Date.parse(at)).padStart(13, '0')}-${createHash('sha256').update(eventId).digest('hex').slice(0, 16)}`;
}

/**
 * The delivery function's work on one queue message, the same on AWS (SQS)
 * and in `npm start` (local/webhook-queue.ts). Every step is safe to repeat,
 * since a queue hands a message over at least once: a fan-out writes each
 * delivery only if it is new; an attempt is claimed on the delivery item
 * before it is sent and recorded under a condition after it, so a copy of the
 * message finds it taken or done (webhook.repo.ts, `claimAttempt`); the next
 * attempt is queued before the outcome is recorded, so a crash in between
 * sends the attempt again (same `webhook-id`) instead of losing the retry.
 */
export function createDelivery(deps: DeliveryDeps) {
  const secrets = new Map<string, string>();
  const secretOf = async (webhook: Webhook): Promise<string> => {
    const cacheKey = `${webhook.webhook_id}:${webhook.secret_ciphertext}`;
    let secret = secrets.get(cacheKey);
    if (secret === undefined) {
      secret = Buffer.from(await deps.keyVault.decrypt(webhook.app_id, webhook.secret_ciphertext)).toString('utf8');
      secrets.set(cacheKey, secret);
    }
    return secret;
  };
  const now = () => deps.clock.now().getTime();

  async function fanOut(event: { id: string; type: string; app_id: string; at: string }, payload: string): Promise<Verdict> {
    const endpoints = (await webhooks.listByApp(deps.table, event.app_id)).filter((webhook) => webhook.enabled && subscribes(webhook, event.type));
    const verdicts = await Promise.all(
      endpoints.map(async (webhook) => {
        const ref = { webhookId: webhook.webhook_id, position: positionOf(event.id, event.at) };
        const createdAt = new Date(now()).toISOString();
        await webhooks.putDelivery(
          deps.table,
          {
            delivery_id: deliveryIds.of(ref),
            webhook_id: webhook.webhook_id,
            app_id: event.app_id,
            event_id: event.id,
            type: event.type,
            payload,
            state: 'pending',
            attempts: 0,
            settled: 0,
            last_status: null,
            last_error: null,
            next_attempt_at: createdAt,
            created_at: createdAt,
          },
          Math.floor(Date.parse(event.at) / 1000) + deliveryRetentionSeconds,
        );
        return attempt(ref, 1, false);
      }),
    );
    return verdicts.includes('retry') ? 'retry' : 'done';
  }

  async function attempt(ref: DeliveryRef, number: number, reopen: boolean): Promise<Verdict> {
    const startedAt = now();
    const claim = await webhooks.claimAttempt(deps.table, ref, number, startedAt, startedAt + attemptLeaseMs, reopen);
    if (claim.kind === 'busy') return 'retry';
    if (claim.kind === 'stale') return 'done';
    const delivery = claim.delivery;
    const webhook = await webhooks.get(deps.table, ref.webhookId);
    const fields = { delivery_id: delivery.delivery_id, webhook_id: ref.webhookId, event_id: delivery.event_id, attempt: number };
    if (!webhook || !webhook.enabled) {
      const error = webhook ? 'not sent: the endpoint is disabled' : 'not sent: the endpoint was deleted';
      await webhooks.recordAttempt(deps.table, ref, number, { state: 'failed', status: null, error, nextAttemptAt: null }, { kind: 'none' });
      deps.logger.info('webhook not sent', { ...fields, reason: webhook ? 'disabled' : 'deleted' });
      return 'done';
    }
    const signer = new Signer(await secretOf(webhook));
    const sentAt = new Date(now());
    const result = await postOnce(
      {
        url: webhook.url,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'licensing-service-webhooks',
          'webhook-id': delivery.event_id,
          'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
          'webhook-signature': signer.sign(delivery.event_id, sentAt, delivery.payload),
        },
        body: delivery.payload,
      },
      deps.policy,
      deps.attemptTimeoutMs,
    );
    const finishedAt = now();
    let outcome: AttemptOutcome;
    let endpoint: EndpointChange;
    if (result.ok) {
      outcome = { state: 'delivered', status: result.status, error: null, nextAttemptAt: null };
      endpoint = webhook.failing_since !== undefined || (webhook.failed_deliveries ?? 0) > 0 ? { kind: 'recovered' } : { kind: 'none' };
    } else {
      const unscaled = waitAfter(number, deps.random);
      const wait = unscaled === undefined ? undefined : unscaled * (deps.waitScale ?? 1);
      const since = webhook.failing_since ?? new Date(finishedAt).toISOString();
      const deliveryFailed = wait === undefined;
      const disable =
        finishedAt - Date.parse(since) >= disableAfterFailingMs
          ? 'every attempt failed for 5 days'
          : deliveryFailed && (webhook.failed_deliveries ?? 0) + 1 >= disableAfterFailedDeliveries
            ? `${disableAfterFailedDeliveries} deliveries in a row failed`
            : undefined;
      const dueAt = wait === undefined || disable ? undefined : finishedAt + wait * 1000;
      if (dueAt !== undefined) await schedule({ attempt: { delivery_id: delivery.delivery_id, number: number + 1, due_at: dueAt } });
      outcome = {
        state: dueAt === undefined ? 'failed' : 'pending',
        status: result.status,
        error: result.error,
        nextAttemptAt: dueAt === undefined ? null : new Date(dueAt).toISOString(),
      };
      endpoint =
        webhook.failing_since === undefined || deliveryFailed || disable ? { kind: 'failing', since, deliveryFailed: deliveryFailed || disable !== undefined, disable } : { kind: 'none' };
      if (disable) deps.logger.warn('webhook endpoint disabled', { webhook_id: ref.webhookId, app_id: webhook.app_id, reason: disable });
    }
    const recorded = await webhooks.recordAttempt(deps.table, ref, number, outcome, endpoint);
    deps.logger.info('webhook attempt', { ...fields, state: outcome.state, status: result.status, recorded, ms: finishedAt - startedAt });
    return 'done';
  }

  /** Queues an attempt for when it is due; a wait longer than the queue's limit is made of hops (`process`). */
  async function schedule(message: AttemptMessage): Promise<void> {
    await deps.queue.send(message, Math.max(0, (message.attempt.due_at - now()) / 1000));
  }

  return {
    /** One message's work; a failure (the store, the key vault) is logged and the message handed over again. */
    async process(body: string): Promise<Verdict> {
      try {
        return await processMessage(body);
      } catch (error) {
        deps.logger.error('delivery queue message failed', describeError(error));
        return 'retry';
      }
    },
  };

  async function processMessage(body: string): Promise<Verdict> {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = undefined;
      }
      const attemptMessage = attemptMessageSchema.safeParse(parsed);
      if (attemptMessage.success) {
        const { delivery_id: deliveryId, number, due_at: dueAt, reopen } = attemptMessage.data.attempt;
        const ref = deliveryIds.parse(deliveryId);
        if (!ref) return 'done';
        // Up to a second early is on time: SQS rounds delays to seconds.
        if (dueAt > now() + 1000) {
          await schedule(attemptMessage.data);
          return 'done';
        }
        return attempt(ref, number, reopen === true);
      }
      const eventMessage = eventMessageSchema.safeParse(parsed);
      // The event as the bus carried it, key order and all: the bytes every attempt signs and sends.
      if (eventMessage.success) return fanOut(eventMessage.data.detail, JSON.stringify((parsed as { detail: unknown }).detail));
      deps.logger.error('delivery queue message not understood', { bytes: body.length });
      return 'retry';
  }
}

export type Delivery = ReturnType<typeof createDelivery>;
