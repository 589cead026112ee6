import * as z from 'zod/mini';
import type { Deps } from '#core/deps';
import { accessDenied } from '#core/domain/ownership';
import { decodeCursor, encodeCursor } from '#core/http/cursor';
import { ManagementError } from '#core/http/errors';
import type { OwnerInput, Page } from '#core/http/handler';
import { deliveryIds, type Delivery } from '#data/model/webhook';
import type { deliveriesSchema, redeliverSchema } from './schemas';
import { ownedWebhook, webhookSetup } from './webhooks';
import * as webhooks from '#data/webhook.repo';

/** A delivery as the log shows it: never its payload (the event, which /audit/get-bulk shows) nor the attempt's lease. */
export function deliveryView(delivery: Delivery) {
  return {
    delivery_id: delivery.delivery_id,
    event_id: delivery.event_id,
    type: delivery.type,
    state: delivery.state,
    attempts: delivery.attempts,
    last_status: delivery.last_status,
    last_error: delivery.last_error,
    next_attempt_at: delivery.next_attempt_at,
    created_at: delivery.created_at,
  };
}

export type DeliveryView = ReturnType<typeof deliveryView>;

/** A cursor is the position of the last delivery shown, for this endpoint and this state filter only. */
const cursorSchema = z.lazy(() => z.tuple([z.string(), z.string().check(z.regex(/^\d{13}-[0-9a-f]{16}$/)), z.nullable(z.enum(['pending', 'delivered', 'failed']))]));

/** `/webhook/deliveries`: the endpoint's log, newest first. */
export async function listDeliveries(deps: Deps, input: OwnerInput<typeof deliveriesSchema>): Promise<Page<DeliveryView>> {
  const after = input.cursor ? decodeCursor(input.cursor, input.webhook_id, cursorSchema) : undefined;
  await ownedWebhook(deps, input.teamId, input.webhook_id);
  if (after && after[2] !== (input.state ?? null)) throw new ManagementError('INVALID_INPUT', 'cursor: was issued for another state; send it with the state of the request that returned it');
  const page = await webhooks.listDeliveries(deps.table, input.webhook_id, { state: input.state, limit: input.per_page, after: after?.[1] });
  return {
    items: page.deliveries.map(deliveryView),
    nextCursor: page.next === undefined ? null : encodeCursor(input.webhook_id, [page.next, input.state ?? null]),
  };
}

/**
 * `/webhook/redeliver`: queues an attempt for now, whatever the delivery's
 * state; it counts as one more attempt, with the same `webhook-id`.
 */
export async function redeliver(deps: Deps, input: OwnerInput<typeof redeliverSchema>) {
  const ref = deliveryIds.parse(input.delivery_id);
  const webhook = ref && (await webhooks.get(deps.table, ref.webhookId));
  if (!ref || !webhook) throw new ManagementError('DELIVERY_NOT_FOUND');
  if (webhook.team_id !== input.teamId) throw accessDenied();
  const delivery = await webhooks.getDelivery(deps.table, ref);
  if (!delivery) throw new ManagementError('DELIVERY_NOT_FOUND');
  if (!webhook.enabled) throw new ManagementError('WEBHOOK_DISABLED');
  await webhookSetup(deps).queue.send({ attempt: { delivery_id: delivery.delivery_id, number: delivery.settled + 1, due_at: deps.clock.now().getTime(), reopen: true } }, 0);
  return { delivery_id: delivery.delivery_id, queued: true };
}
