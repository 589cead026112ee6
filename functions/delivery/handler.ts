import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { readConfig } from '#core/config';
import { createLambdaDeps, forRequest } from '#core/deps';
import { createKmsClient, kmsKeyVault } from '#core/signing/kms-vault';
import { attemptTimeoutMs, createDelivery, deliveryActor, type Delivery } from './deliver';
import { createSqsClient, sqsDeliveryQueue } from './sqs-queue';

let delivery: Promise<Delivery> | undefined;

async function createDeliveryFromEnv(): Promise<Delivery> {
  const config = readConfig();
  if (!config.signingKmsKeyId || !config.webhookQueueUrl) throw new Error('SIGNING_KMS_KEY_ID and WEBHOOK_QUEUE_URL must be set on the delivery function');
  const deps = forRequest(await createLambdaDeps(config), undefined, deliveryActor);
  return createDelivery({
    ...deps,
    keyVault: kmsKeyVault(createKmsClient(config.region, config.kmsEndpoint), config.signingKmsKeyId),
    queue: sqsDeliveryQueue(createSqsClient(config.region), config.webhookQueueUrl),
    // The deployed stack delivers to public https addresses only, whatever the environment says.
    policy: 'public',
    attemptTimeoutMs,
  });
}

/**
 * The delivery queue (no route): each message is an event to fan out to the
 * app's endpoints or an attempt that is due. Messages are handled side by
 * side; those to hand over again are reported (ReportBatchItemFailures).
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  delivery ??= createDeliveryFromEnv();
  const worker = await delivery;
  const verdicts = await Promise.all(event.Records.map((record) => worker.process(record.body)));
  return { batchItemFailures: event.Records.filter((_, index) => verdicts[index] === 'retry').map((record) => ({ itemIdentifier: record.messageId })) };
}
