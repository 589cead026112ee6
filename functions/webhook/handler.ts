import { readConfig } from '#core/config';
import { createLambdaDeps, type Deps } from '#core/deps';
import { createGroupHandler, managementEndpoint, managementListEndpoint, type DepsSource, type Endpoints } from '#core/http/handler';
import { lazyKmsKeyVault } from '#core/signing/signing-deps';
import { lazySqsDeliveryQueue } from '../delivery/queue';
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
    return createLambdaDeps(config, lazyKmsKeyVault(config.region, config.kmsEndpoint, config.signingKmsKeyId), {
      queue: lazySqsDeliveryQueue(config.region, config.webhookQueueUrl),
      policy: 'public',
    });
  })();
  return webhookDeps;
}

export const handler = createHandler(webhookDepsFromEnv);
