import type { Deps } from '#core/deps';
import type { OwnerInput } from '#core/http';
import { notFound, ownedApp } from '#core/ownership';
import type { AppSettingsChange } from '#data/app.repo';
import { offlineTokenTtl } from '../client/offline-token';
import { hwidResetDefaults } from '../license/new-license';
import type { settingsSchema } from './schemas';

export interface AppSettings {
  app_id: string;
  offline_token_ttl: number;
  default_hwid_reset_allowed: boolean;
  default_hwid_reset_interval: number;
}

/** `POST /app/settings`: sets what the body names, then answers every setting as stored. */
export async function appSettings(deps: Deps, input: OwnerInput<typeof settingsSchema>): Promise<AppSettings> {
  const app = await ownedApp(deps, input.teamId, input.app_id);
  const change: AppSettingsChange = {
    offline_token_ttl: input.offline_token_ttl,
    default_hwid_reset_allowed: input.default_hwid_reset_allowed,
    default_hwid_reset_interval: input.default_hwid_reset_interval,
  };
  const sent = Object.entries(change).filter(([, value]) => value !== undefined);
  if (sent.length > 0 && !(await deps.repos.apps.updateSettings(app.app_id, change))) throw notFound.app();
  const settings: AppSettingsChange = { ...app, ...Object.fromEntries(sent) };
  return {
    app_id: app.app_id,
    offline_token_ttl: settings.offline_token_ttl ?? offlineTokenTtl.defaultSeconds,
    default_hwid_reset_allowed: settings.default_hwid_reset_allowed ?? hwidResetDefaults.hwid_reset_allowed,
    default_hwid_reset_interval: settings.default_hwid_reset_interval ?? hwidResetDefaults.hwid_reset_interval,
  };
}
