import type { Deps } from '#core/deps';
import { newAppSecret } from '#core/ids';
import type { OwnerInput } from '#core/http/handler';
import { notFound, ownedApp, ownedSubscription } from '#core/domain/ownership';
import { invalidInput, ManagementError } from '#core/http/errors';
import type { TrialSettings } from '#data/model/trial';
import { portalDefaults, type PortalSettings } from '#data/model/portal';
import { appSettingsFields, type AppSecrets, type AppSettingsChange } from '#data/model/app';
import { offlineTokenTtl } from '../client/offline-token';
import { hwidResetDefaults } from '../license/new-license';
import { borrowSecondsLimits } from '#data/model/lease';
import { licenseFileSecondsLimits } from '#data/model/license-file';
import type { settingsSchema } from './schemas';
import * as apps from '#data/app.repo';

export interface AppSettings {
  app_id: string;
  offline_token_ttl: number;
  default_hwid_reset_allowed: boolean;
  default_hwid_reset_interval: number;
  max_borrow_seconds: number;
  max_license_file_seconds: number;
  trial: TrialSettings | null;
  portal: PortalSettings;
}

/** `POST /app/settings`: sets what the body names, then answers every setting as stored. */
export async function appSettings(deps: Deps, input: OwnerInput<typeof settingsSchema>): Promise<AppSettings> {
  const app = await ownedApp(deps, input.teamId, input.app_id);
  if (input.trial) await checkTrialSubscription(deps, input.teamId, app.app_id, input.trial.subscription_id);
  // The portal signs customers in by emailed code: on, in a deployment that sends no email, no one could sign in.
  if (input.portal?.enabled && deps.mailer === undefined) throw new ManagementError('NO_EMAIL_SENDER');
  const sent: AppSettingsChange = Object.fromEntries(appSettingsFields.flatMap((field) => (input[field] === undefined ? [] : [[field, input[field]]])));
  const secrets: AppSecrets = {
    portal_secret: input.portal?.enabled && app.portal_secret === undefined ? newAppSecret() : undefined,
    trial_secret: input.trial && app.trial_secret === undefined ? newAppSecret() : undefined,
  };
  if (Object.keys(sent).length > 0 && !(await apps.updateSettings(deps.table, app.app_id, sent, secrets))) throw notFound.app();
  const settings: AppSettingsChange = { ...app, ...sent };
  return {
    app_id: app.app_id,
    offline_token_ttl: settings.offline_token_ttl ?? offlineTokenTtl.defaultSeconds,
    default_hwid_reset_allowed: settings.default_hwid_reset_allowed ?? hwidResetDefaults.hwid_reset_allowed,
    default_hwid_reset_interval: settings.default_hwid_reset_interval ?? hwidResetDefaults.hwid_reset_interval,
    max_borrow_seconds: settings.max_borrow_seconds ?? borrowSecondsLimits.defaultMax,
    max_license_file_seconds: settings.max_license_file_seconds ?? licenseFileSecondsLimits.defaultMax,
    trial: settings.trial ?? null,
    portal: settings.portal ?? portalDefaults,
  };
}

/** A trial's tier: the owner's (else ACCESS_DENIED or SUBSCRIPTION_NOT_FOUND) and of this application (else INVALID_INPUT). */
async function checkTrialSubscription(deps: Deps, teamId: string, appId: string, subscriptionId: string): Promise<void> {
  const subscription = await ownedSubscription(deps, teamId, subscriptionId);
  if (subscription.app_id !== appId) throw invalidInput('trial.subscription_id: must belong to the application');
}
