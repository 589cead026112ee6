import { iso } from '#shared/clock';
import type { Deps } from '#core/deps';
import { makeApiKey } from '#core/domain/api-keys';
import { newId, sha256Hex } from '#core/ids';
import { newSigningKey, publicSigningKey, rotateSigningKey, currentSigningKey } from '#core/signing/signing-keys';
import type { App } from '#data/model/app';
import * as apiKeys from '#data/api-key.repo';
import * as apps from '#data/app.repo';
import * as teams from '#data/team.repo';

/**
 * Owner set-up, the dashboard's job in the hosted services: teams, apps, API
 * keys. Used by the admin CLI and by `npm start`'s demo owner.
 */
type AdminDeps = Pick<Deps, 'table' | 'clock' | 'keyVault' | 'signers'>;

export class AdminError extends Error {}

export async function createTeam(deps: AdminDeps, input: { name?: string; planExpiresAt?: string | null }) {
  const team = {
    team_id: newId(),
    name: input.name ?? 'My team',
    plan_expires_at: input.planExpiresAt ?? null,
    created_at: iso(deps.clock.now()),
  };
  await teams.create(deps.table, team);
  return { team_id: team.team_id };
}

export async function setTeamPlan(deps: AdminDeps, input: { teamId: string; planExpiresAt: string | null }) {
  if (!(await teams.setPlanExpiry(deps.table, input.teamId, input.planExpiresAt))) {
    throw new AdminError(`No team ${input.teamId}`);
  }
  return { team_id: input.teamId, plan_expires_at: input.planExpiresAt };
}

export async function createApp(deps: AdminDeps, input: { teamId: string; name?: string }) {
  if (!(await teams.get(deps.table, input.teamId))) throw new AdminError(`No team ${input.teamId}`);
  const appId = newId();
  await makeApp(deps, { teamId: input.teamId, appId, name: input.name ?? 'My app' });
  return { app_id: appId };
}

/**
 * A new active application of the team with its signing key (the admin CLI's
 * `app create` and `/app/create`). False `created`: an application with this
 * id exists (a resent `/app/create`, whose id derives from its `request_id`),
 * answered as it is stored.
 */
export async function makeApp(deps: AdminDeps, input: { teamId: string; appId: string; name: string }): Promise<{ app: App | undefined; created: boolean }> {
  const app: App = {
    app_id: input.appId,
    team_id: input.teamId,
    name: input.name,
    status: 'active',
    created_at: iso(deps.clock.now()),
    signing_key: (await newSigningKey(deps, input.appId)).stored,
  };
  if (await apps.create(deps.table, app)) return { app, created: true };
  return { app: await apps.get(deps.table, input.appId), created: false };
}

export async function setAppStatus(deps: AdminDeps, input: { appId: string; status: App['status'] }) {
  if (!(await apps.update(deps.table, input.appId, { status: input.status }))) throw new AdminError(`No app ${input.appId}`);
  return { app_id: input.appId, status: input.status };
}

export async function renameApp(deps: AdminDeps, input: { appId: string; name: string }) {
  if (!(await apps.update(deps.table, input.appId, { name: input.name }))) throw new AdminError(`No app ${input.appId}`);
  return { app_id: input.appId, name: input.name };
}

/** The application's public signing key; made now for an application from before signing. */
export async function showSigningKey(deps: AdminDeps, input: { appId: string }) {
  const app = await apps.get(deps.table, input.appId);
  if (!app) throw new AdminError(`No app ${input.appId}`);
  return { app_id: app.app_id, ...publicSigningKey(await currentSigningKey(deps, app)) };
}

/** A new key pair replaces the application's key; only the new one signs from then on. */
export async function rotateAppSigningKey(deps: AdminDeps, input: { appId: string }) {
  const stored = await rotateSigningKey(deps, input.appId);
  if (!stored) throw new AdminError(`No app ${input.appId}`);
  return { app_id: input.appId, ...publicSigningKey(stored) };
}

/**
 * An admin key, returned once and stored only as its SHA-256 (docs/api-keys.md). On a deployed stack,
 * `registerUsageKey` creates the API Gateway key the usage plan meters this owner by.
 */
export async function createApiKey(
  deps: AdminDeps,
  input: { teamId: string; registerUsageKey?: (teamId: string) => Promise<string> },
) {
  if (!(await teams.get(deps.table, input.teamId))) throw new AdminError(`No team ${input.teamId}`);
  const usageIdentifierKey = input.registerUsageKey ? await input.registerUsageKey(input.teamId) : undefined;
  const { apiKey } = await makeApiKey(deps, { teamId: input.teamId, role: 'admin', name: 'Admin CLI', usageIdentifierKey });
  return { api_key: apiKey };
}

export async function revokeApiKey(deps: AdminDeps, input: { apiKey: string }) {
  if (!(await apiKeys.revoke(deps.table, sha256Hex(input.apiKey)))) throw new AdminError('No such API key');
  return { revoked: true };
}

/** A team with a never-expiring plan, one active app and one API key. */
export async function bootstrap(deps: AdminDeps, input: { registerUsageKey?: (teamId: string) => Promise<string> } = {}) {
  const { team_id } = await createTeam(deps, {});
  const { app_id } = await createApp(deps, { teamId: team_id });
  const { api_key } = await createApiKey(deps, { teamId: team_id, registerUsageKey: input.registerUsageKey });
  return { team_id, app_id, api_key };
}
