import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryQueue } from '#core/deps';

/** SQS's longest delay: a message may wait at most 15 minutes before it is delivered. */
const maxQueueDelaySeconds = 900;

/** The SQS client of the functions that queue deliveries: a send that failed on the way is retried up to four attempts in all. */
export const createSqsClient = (region: string) => new SQSClient({ region, maxAttempts: 4 });

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
