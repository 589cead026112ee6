import type { Deps } from '#core/deps';
import { inScope } from '#core/http/app-scope';
import type { OwnerInput } from '#core/http/handler';
import { appSummary } from './manage';
import type { listAppsSchema } from './schemas';
import * as apps from '#data/app.repo';

/** The caller's own applications only (those its API key is limited to, if it is): the team comes from the API key, never from the body. */
export async function listApps(deps: Deps, input: OwnerInput<typeof listAppsSchema>) {
  const owned = (await apps.listByTeam(deps.table, input.teamId)).filter((app) => inScope(deps, app.app_id));
  return owned.map(appSummary);
}
