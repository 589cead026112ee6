import type { Deps } from '#core/deps';
import type { OwnerInput } from '#core/http';
import { notFound, ownedApp } from '#core/ownership';
import { offlineTokenTtl } from '../client/offline-token';
import type { settingsSchema } from './schemas';

export interface AppSettings {
  app_id: string;
  offline_token_ttl: number;
}

/** `POST /app/settings`: sets what the body names, then answers every setting as stored. */
export async function appSettings(deps: Deps, input: OwnerInput<typeof settingsSchema>): Promise<AppSettings> {
  const app = await ownedApp(deps, input.teamId, input.app_id);
  let ttl = app.offline_token_ttl;
  if (input.offline_token_ttl !== undefined) {
    if (!(await deps.repos.apps.setOfflineTokenTtl(app.app_id, input.offline_token_ttl))) throw notFound.app();
    ttl = input.offline_token_ttl;
  }
  return { app_id: app.app_id, offline_token_ttl: ttl ?? offlineTokenTtl.defaultSeconds };
}
