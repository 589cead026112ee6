import * as z from 'zod/mini';
import type { DeliveryQueue } from '#core/deps';

/**
 * What the delivery queue carries (docs/webhooks.md#on-aws): events as
 * EventBridge's rule puts them there (its envelope, the event in `detail`),
 * and attempts the delivery function or a redelivery scheduled.
 */
export const attemptMessageSchema = z.lazy(() =>
  z.object({
    attempt: z.object({
      delivery_id: z.string(),
      /** Which attempt this is: the first is 1. */
      number: z.int().check(z.positive()),
      /** When it is due (epoch milliseconds): a wait longer than the queue's 15 minutes is made of several hops. */
      due_at: z.number(),
      /** A redelivery: the attempt is made whatever state the delivery is in. */
      reopen: z.optional(z.boolean()),
    }),
  }),
);
export type AttemptMessage = z.infer<typeof attemptMessageSchema>;

export const eventMessageSchema = z.lazy(() =>
  z.object({
    'detail-type': z.string(),
    detail: z.looseObject({ id: z.string(), type: z.string(), app_id: z.string(), at: z.string() }),
  }),
);

/**
 * On AWS: the stack's delivery queue, its URL in WEBHOOK_QUEUE_URL, its SQS
 * client loaded and made on the first message sent. Of the webhook routes only
 * a redelivery sends one, so their cold starts leave the client out.
 */
export function lazySqsDeliveryQueue(region: string, queueUrl: string): DeliveryQueue {
  let queue: Promise<DeliveryQueue> | undefined;
  const load = () => (queue ??= import('./sqs-queue').then(({ createSqsClient, sqsDeliveryQueue }) => sqsDeliveryQueue(createSqsClient(region), queueUrl)));
  return { send: async (message, delaySeconds) => (await load()).send(message, delaySeconds) };
}
