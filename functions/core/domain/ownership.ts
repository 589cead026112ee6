import type { App } from '#data/model/app';
import type { License } from '#data/model/license';
import type { Subscription } from '#data/model/subscription';
import type { Deps } from '../deps';
import { ManagementError } from '../http/errors';
import { inScope } from '../http/app-scope';
import * as apps from '#data/app.repo';
import * as licenses from '#data/license.repo';
import * as subscriptions from '#data/subscription.repo';

/**
 * Ownership rules of docs/management-api.md (its introduction), checked after the API key and the body.
 * An app or subscription of another owner is ACCESS_DENIED; a license of another
 * owner is LICENSE_NOT_FOUND, exactly like a missing one, so an API key cannot
 * probe which license keys exist elsewhere. A key limited to applications meets
 * the others of its team as another team's: `guardAppScope` refuses what a body
 * names of them before any route's own code runs, and a license of them answers
 * as a missing one (`isOwnedLicense`, and the license writes' conditions).
 */
type OwnershipDeps = Pick<Deps, 'table' | 'appScope'>;

export const notFound = {
  app: () => new ManagementError('APP_NOT_FOUND'),
  license: () => new ManagementError('LICENSE_NOT_FOUND'),
  subscription: () => new ManagementError('SUBSCRIPTION_NOT_FOUND'),
};

export const accessDenied = () => new ManagementError('ACCESS_DENIED');

export async function ownedApp(deps: Pick<Deps, 'table'>, teamId: string, appId: string): Promise<App> {
  const app = await apps.get(deps.table, appId);
  if (!app) throw notFound.app();
  if (app.team_id !== teamId) throw accessDenied();
  return app;
}

export async function ownedSubscription(deps: Pick<Deps, 'table'>, teamId: string, subscriptionId: string): Promise<Subscription> {
  const subscription = await subscriptions.get(deps.table, subscriptionId);
  if (!subscription) throw notFound.subscription();
  if (subscription.team_id !== teamId) throw accessDenied();
  return subscription;
}

export function isOwnedLicense(deps: Pick<Deps, 'appScope'>, license: License | undefined, teamId: string): license is License {
  return license !== undefined && license.team_id === teamId && inScope(deps, license.app_id);
}

export async function ownedLicense(deps: OwnershipDeps, teamId: string, licenseKey: string): Promise<License> {
  const license = await licenses.get(deps.table, licenseKey, teamId);
  if (!isOwnedLicense(deps, license, teamId)) throw notFound.license();
  return license;
}
