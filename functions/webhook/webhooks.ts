import { randomBytes } from 'node:crypto';
import type { Deps, WebhookSetup } from '#core/deps';
import { newId } from '#core/ids';
import { accessDenied, ownedApp } from '#core/domain/ownership';
import { invalidInput, ManagementError } from '#core/http/errors';
import type { OwnerInput } from '#core/http/handler';
import type { KeyVault } from '#core/key-vault';
import type { Webhook } from '#data/model/webhook';
import { iso } from '#shared/clock';
import { targetProblem } from '../delivery/target-policy';
import type { createWebhookSchema, listWebhooksSchema, updateWebhookSchema, webhookIdSchema } from './schemas';
import * as webhooks from '#data/webhook.repo';

/** An endpoint as answers show it: never its secret, encrypted or not, nor the delivery function's bookkeeping. */
export function webhookView(webhook: Webhook) {
  return {
    webhook_id: webhook.webhook_id,
    url: webhook.url,
    events: webhook.events,
    description: webhook.description,
    enabled: webhook.enabled,
    created_at: webhook.created_at,
  };
}

/** `whsec_` and 32 random bytes in base64, as the Standard Webhooks libraries read a secret. */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function webhookSetup(deps: Deps): WebhookSetup {
  if (!deps.webhooks) throw new Error('the webhook routes need a delivery queue and a target policy');
  return deps.webhooks;
}

function vault(deps: Deps): KeyVault {
  if (!deps.keyVault) throw new Error('the webhook routes need a key vault for secrets');
  return deps.keyVault;
}

function checkTarget(deps: Deps, url: string): void {
  const problem = targetProblem(url, webhookSetup(deps).policy);
  if (problem) throw invalidInput(`url: ${problem}`);
}

/**
 * Another owner's endpoint is ACCESS_DENIED, as another owner's application is (docs/management-api.md);
 * one of an application the API key is not limited to was refused before (`guardAppScope`).
 */
export async function ownedWebhook(deps: Deps, teamId: string, webhookId: string): Promise<Webhook> {
  const webhook = await webhooks.get(deps.table, webhookId);
  if (!webhook) throw new ManagementError('WEBHOOK_NOT_FOUND');
  if (webhook.team_id !== teamId) throw accessDenied();
  return webhook;
}

/** `/webhook/create`: the only answer but rotate-secret's that shows the secret. */
export async function createWebhook(deps: Deps, input: OwnerInput<typeof createWebhookSchema>) {
  checkTarget(deps, input.url);
  const app = await ownedApp(deps, input.teamId, input.app_id);
  const secret = newSecret();
  const webhook: Webhook = {
    webhook_id: newId(),
    app_id: app.app_id,
    team_id: app.team_id,
    url: input.url,
    events: input.events,
    description: input.description ?? '',
    enabled: true,
    created_at: iso(deps.clock.now()),
    secret_ciphertext: await vault(deps).encrypt(app.app_id, Buffer.from(secret, 'utf8')),
  };
  if (!(await webhooks.create(deps.table, webhook))) throw new ManagementError('WEBHOOK_LIMIT_REACHED');
  return { ...webhookView(webhook), secret };
}

export async function listWebhooks(deps: Deps, input: OwnerInput<typeof listWebhooksSchema>) {
  await ownedApp(deps, input.teamId, input.app_id);
  return (await webhooks.listByApp(deps.table, input.app_id)).map(webhookView);
}

/** Enabling an endpoint clears its record of failures (docs/webhooks.md#retries-and-disabling). */
export async function updateWebhook(deps: Deps, input: OwnerInput<typeof updateWebhookSchema>) {
  if (input.url !== undefined) checkTarget(deps, input.url);
  await ownedWebhook(deps, input.teamId, input.webhook_id);
  const fields = Object.fromEntries(
    Object.entries({ url: input.url, events: input.events, description: input.description, enabled: input.enabled }).filter(([, value]) => value !== undefined),
  );
  const updated = await webhooks.update(deps.table, input.webhook_id, fields);
  if (!updated) throw new ManagementError('WEBHOOK_NOT_FOUND');
  return webhookView(updated);
}

export async function deleteWebhook(deps: Deps, input: OwnerInput<typeof webhookIdSchema>) {
  const webhook = await ownedWebhook(deps, input.teamId, input.webhook_id);
  if (!(await webhooks.remove(deps.table, webhook))) throw new ManagementError('WEBHOOK_NOT_FOUND');
  return { webhook_id: webhook.webhook_id, deleted: true };
}

/** A new secret at once: attempts from then on are signed with it, the old one is forgotten. */
export async function rotateWebhookSecret(deps: Deps, input: OwnerInput<typeof webhookIdSchema>) {
  const webhook = await ownedWebhook(deps, input.teamId, input.webhook_id);
  const secret = newSecret();
  const updated = await webhooks.update(deps.table, webhook.webhook_id, {
    secret_ciphertext: await vault(deps).encrypt(webhook.app_id, Buffer.from(secret, 'utf8')),
  });
  if (!updated) throw new ManagementError('WEBHOOK_NOT_FOUND');
  return { ...webhookView(updated), secret };
}
