import type { App } from '#data/app.repo';
import type { License } from '#data/license.repo';
import type { Subscription } from '#data/subscription.repo';
import { deliveryIds } from '#data/webhook.repo';
import type { Deps } from '../deps';
import { ManagementError } from '../http/errors';

/**
 * Ownership rules of docs/management-api.md (its introduction), checked after the API key and the body.
 * An app or subscription of another owner is ACCESS_DENIED; a license of another
 * owner is LICENSE_NOT_FOUND, exactly like a missing one, so an API key cannot
 * probe which license keys exist elsewhere. A key limited to applications meets
 * the others of its team as another team's: `guardAppScope` refuses what a body
 * names of them before any route's own code runs, and a license of them answers
 * as a missing one (`isOwnedLicense`, and the license writes' conditions).
 */
type OwnershipDeps = Pick<Deps, 'repos' | 'appScope'>;

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
export async function guardAppScope(deps: Pick<Deps, 'repos' | 'appScope'>, teamId: string, input: Record<string, unknown>): Promise<void> {
  if (deps.appScope === undefined) return;
  const named = (field: string): string | undefined => (typeof input[field] === 'string' ? (input[field] as string) : undefined);
  const apps = [named('app_id') ?? [], Array.isArray(input.apps) ? (input.apps as string[]) : []].flat();
  if (!apps.every((appId) => inScope(deps, appId))) throw accessDenied();
  const subscriptionId = named('subscription_id');
  const webhookId = named('webhook_id') ?? deliveryIds.parse(named('delivery_id') ?? '')?.webhookId;
  const keyId = named('key_id');
  const [subscription, webhook, key] = await Promise.all([
    subscriptionId === undefined ? undefined : deps.repos.subscriptions.get(subscriptionId),
    webhookId === undefined ? undefined : deps.repos.webhooks.get(webhookId),
    keyId === undefined ? undefined : deps.repos.apiKeys.listByTeam(teamId).then((listed) => listed.find((record) => record.key_id === keyId)),
  ]);
  const outside = [subscription, webhook].some((item) => item !== undefined && !inScope(deps, item.app_id));
  if (outside || (key !== undefined && !keyInScope(deps, key.apps))) throw accessDenied();
}

export const notFound = {
  app: () => new ManagementError('APP_NOT_FOUND'),
  license: () => new ManagementError('LICENSE_NOT_FOUND'),
  subscription: () => new ManagementError('SUBSCRIPTION_NOT_FOUND'),
};

export const accessDenied = () => new ManagementError('ACCESS_DENIED');

export async function ownedApp(deps: Pick<Deps, 'repos'>, teamId: string, appId: string): Promise<App> {
  const app = await deps.repos.apps.get(appId);
  if (!app) throw notFound.app();
  if (app.team_id !== teamId) throw accessDenied();
  return app;
}

export async function ownedSubscription(deps: Pick<Deps, 'repos'>, teamId: string, subscriptionId: string): Promise<Subscription> {
  const subscription = await deps.repos.subscriptions.get(subscriptionId);
  if (!subscription) throw notFound.subscription();
  if (subscription.team_id !== teamId) throw accessDenied();
  return subscription;
}

export function isOwnedLicense(deps: Pick<Deps, 'appScope'>, license: License | undefined, teamId: string): license is License {
  return license !== undefined && license.team_id === teamId && inScope(deps, license.app_id);
}

export async function ownedLicense(deps: OwnershipDeps, teamId: string, licenseKey: string): Promise<License> {
  const license = await deps.repos.licenses.get(licenseKey, teamId);
  if (!isOwnedLicense(deps, license, teamId)) throw notFound.license();
  return license;
}
