import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod/mini';

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

/** SQS's longest delay: a message may wait at most 15 minutes before it is delivered. */
export const maxQueueDelaySeconds = 900;

export interface DeliveryQueue {
  send(message: AttemptMessage, delaySeconds: number): Promise<void>;
}

/** On AWS: the stack's delivery queue, its URL in WEBHOOK_QUEUE_URL. */
export function sqsDeliveryQueue(sqs: SQSClient, queueUrl: string): DeliveryQueue {
  return {
    async send(message, delaySeconds) {
      await sqs.send(
        new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message), DelaySeconds: Math.min(maxQueueDelaySeconds, Math.max(0, Math.ceil(delaySeconds))) }),
      );
    },
  };
}
