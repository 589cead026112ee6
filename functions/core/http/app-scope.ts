import { deliveryIds } from '#data/model/webhook';
import type { Deps } from '../deps';
import { ManagementError } from './errors';
import * as apiKeys from '#data/api-key.repo';
import * as subscriptions from '#data/subscription.repo';
import * as webhooks from '#data/webhook.repo';

/**
 * Whether the request's API key may reach the application: a key limited to
 * some of the team's applications meets the others as another team's
 * (docs/api-keys.md#keys-limited-to-applications).
 */
export function inScope(deps: Pick<Deps, 'appScope'>, appId: string): boolean {
  return deps.appScope === undefined || deps.appScope.has(appId);
}

/**
 * Whether an API key limited to `apps` (undefined: every application) lies
 * within the request key's reach: a key limited to applications sees and
 * revokes only keys limited to some of its own (docs/api-keys.md#keys-limited-to-applications).
 */
export function keyInScope(deps: Pick<Deps, 'appScope'>, apps: readonly string[] | undefined): boolean {
  return deps.appScope === undefined || (apps !== undefined && apps.every((appId) => deps.appScope!.has(appId)));
}

/**
 * The one check of a key limited to applications against what a management
 * body names, run for every management route once its body is valid
 * (core/http/handler.ts): a field names the same kind of thing on every route,
 * so a route cannot forget it. `app_id` and `apps` are applications;
 * `subscription_id` a tier, `webhook_id` an endpoint, `delivery_id` a delivery
 * of an endpoint, `key_id` an API key, each read for the application(s) it
 * belongs to. Anything outside the key's applications is ACCESS_DENIED, as
 * another team's is; what does not exist is left to the route, which answers
 * its own not-found. License keys are not here: a license outside answers as
 * a missing one, key by key in bulk routes (`isOwnedLicense`).
 */
export async function guardAppScope(deps: Pick<Deps, 'table' | 'appScope'>, teamId: string, input: Record<string, unknown>): Promise<void> {
  if (deps.appScope === undefined) return;
  const named = (field: string): string | undefined => (typeof input[field] === 'string' ? (input[field] as string) : undefined);
  const appIds = [named('app_id') ?? [], Array.isArray(input.apps) ? (input.apps as string[]) : []].flat();
  if (!appIds.every((appId) => inScope(deps, appId))) throw new ManagementError('ACCESS_DENIED');
  const subscriptionId = named('subscription_id');
  const webhookId = named('webhook_id') ?? deliveryIds.parse(named('delivery_id') ?? '')?.webhookId;
  const keyId = named('key_id');
  const [subscription, webhook, key] = await Promise.all([
    subscriptionId === undefined ? undefined : subscriptions.get(deps.table, subscriptionId),
    webhookId === undefined ? undefined : webhooks.get(deps.table, webhookId),
    keyId === undefined ? undefined : apiKeys.listByTeam(deps.table, teamId).then((listed) => listed.find((record) => record.key_id === keyId)),
  ]);
  const outside = [subscription, webhook].some((item) => item !== undefined && !inScope(deps, item.app_id));
  if (outside || (key !== undefined && !keyInScope(deps, key.apps))) throw new ManagementError('ACCESS_DENIED');
}
