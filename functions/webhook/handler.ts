import { SQSClient } from '@aws-sdk/client-sqs';
import { readConfig } from '#core/config';
import { createLambdaDeps, type Deps } from '#core/deps';
import { createGroupHandler, managementEndpoint, managementListEndpoint, type DepsSource, type Endpoints } from '#core/http/handler';
import { createKmsClient, kmsKeyVault } from '#core/signing/kms-vault';
import { sqsDeliveryQueue } from '../delivery/queue';
import { listDeliveries, redeliver } from './deliveries';
import * as schemas from './schemas';
import { createWebhook, deleteWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from './webhooks';

export const endpoints: Endpoints<'webhook'> = {
  '/webhook/create': managementEndpoint(schemas.createWebhookSchema, createWebhook),
  '/webhook/list': managementEndpoint(schemas.listWebhooksSchema, listWebhooks),
  '/webhook/update': managementEndpoint(schemas.updateWebhookSchema, updateWebhook),
  '/webhook/delete': managementEndpoint(schemas.webhookIdSchema, deleteWebhook),
  '/webhook/rotate-secret': managementEndpoint(schemas.webhookIdSchema, rotateWebhookSecret),
  '/webhook/deliveries': managementListEndpoint(schemas.deliveriesSchema, listDeliveries),
  '/webhook/redeliver': managementEndpoint(schemas.redeliverSchema, redeliver),
};

export const createHandler = (deps: DepsSource) => createGroupHandler('webhook', endpoints, deps);

let webhookDeps: Promise<Deps> | undefined;

/** The Lambda deps with the KMS vault for secrets, the delivery queue, and the deployed stack's only target policy. */
function webhookDepsFromEnv(): Promise<Deps> {
  webhookDeps ??= (() => {
    const config = readConfig();
    if (!config.signingKmsKeyId || !config.webhookQueueUrl) throw new Error('SIGNING_KMS_KEY_ID and WEBHOOK_QUEUE_URL must be set on the webhook function');
    return createLambdaDeps(config, kmsKeyVault(createKmsClient(config.region, config.kmsEndpoint), config.signingKmsKeyId), {
      queue: sqsDeliveryQueue(new SQSClient({ region: config.region, maxAttempts: 4 }), config.webhookQueueUrl),
      policy: 'public',
    });
  })();
  return webhookDeps;
}

export const handler = createHandler(webhookDepsFromEnv);
