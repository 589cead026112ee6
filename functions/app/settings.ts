import type { Deps } from '#core/deps';
import type { OwnerInput } from '#core/http/handler';
import { notFound, ownedApp } from '#core/domain/ownership';
import { appSettingsFields, type AppSettingsChange } from '#data/model/app';
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
}

/** `POST /app/settings`: sets what the body names, then answers every setting as stored. */
export async function appSettings(deps: Deps, input: OwnerInput<typeof settingsSchema>): Promise<AppSettings> {
  const app = await ownedApp(deps, input.teamId, input.app_id);
  const sent: AppSettingsChange = Object.fromEntries(appSettingsFields.flatMap((field) => (input[field] === undefined ? [] : [[field, input[field]]])));
  if (Object.keys(sent).length > 0 && !(await apps.updateSettings(deps.table, app.app_id, sent))) throw notFound.app();
  const settings: AppSettingsChange = { ...app, ...sent };
  return {
    app_id: app.app_id,
    offline_token_ttl: settings.offline_token_ttl ?? offlineTokenTtl.defaultSeconds,
    default_hwid_reset_allowed: settings.default_hwid_reset_allowed ?? hwidResetDefaults.hwid_reset_allowed,
    default_hwid_reset_interval: settings.default_hwid_reset_interval ?? hwidResetDefaults.hwid_reset_interval,
    max_borrow_seconds: settings.max_borrow_seconds ?? borrowSecondsLimits.defaultMax,
    max_license_file_seconds: settings.max_license_file_seconds ?? licenseFileSecondsLimits.defaultMax,
  };
}
