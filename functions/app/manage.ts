import type { Deps } from '#core/deps';
import { namedUuid, newId } from '#core/ids';
import { notFound, ownedApp } from '#core/domain/ownership';
import type { OwnerInput } from '#core/http/handler';
import { publicSigningKey, type PublicSigningKey } from '#core/signing/signing-keys';
import type { App } from '#data/model/app';
import { makeApp, rotateAppSigningKey } from '../admin/owners';
import type { appIdSchema, createAppSchema, updateAppSchema } from './schemas';
import * as apps from '#data/app.repo';

/** An application as `/app/list` lists it. */
export const appSummary = ({ app_id, name, status, created_at }: App) => ({ app_id, name, status, created_at });

/**
 * `/app/create`: a new active application of the caller's team, with its
 * signing key, as the admin CLI's `app create` makes it. With a `request_id`
 * the id derives from the team and that id, so the same request sent again
 * answers the application the first one made instead of making another.
 */
export async function createApp(deps: Deps, input: OwnerInput<typeof createAppSchema>): Promise<ReturnType<typeof appSummary> & { signing_key: PublicSigningKey }> {
  const appId = input.request_id === undefined ? newId() : namedUuid('app', input.teamId, input.request_id);
  const { app } = await makeApp(deps, { teamId: input.teamId, appId, name: input.name });
  // Applications are never deleted, and a derived id is the team's own (the team is one of its names).
  if (!app?.signing_key) throw new Error(`application ${appId} was neither made nor found`);
  return { ...appSummary(app), signing_key: publicSigningKey(app.signing_key) };
}

/** `/app/update`: the name and status sent, in one write; an inactive application's clients get `APPLICATION_NOT_ACTIVE`. */
export async function updateApp(deps: Deps, input: OwnerInput<typeof updateAppSchema>) {
  const app = await ownedApp(deps, input.teamId, input.app_id);
  const change = { ...(input.name === undefined ? {} : { name: input.name }), ...(input.status === undefined ? {} : { status: input.status }) };
  if (!(await apps.update(deps.table, app.app_id, change))) throw notFound.app();
  return appSummary({ ...app, ...change });
}

/** `/app/rotate-signing-key`: the admin CLI's rotation, for the caller's own application. */
export async function rotateSigningKey(deps: Deps, input: OwnerInput<typeof appIdSchema>): Promise<PublicSigningKey> {
  const app = await ownedApp(deps, input.teamId, input.app_id);
  const { app_id: _appId, ...key } = await rotateAppSigningKey(deps, { appId: app.app_id });
  return key;
}
