import { iso } from '#shared/clock';
import type { Deps } from '#core/deps';
import { makeApiKey } from '#core/domain/api-keys';
import { accessDenied, ownedApp } from '#core/domain/ownership';
import { keyInScope } from '#core/http/app-scope';
import type { CallingKey, OwnerInput } from '#core/http/handler';
import type { ApiKeyRecord } from '#data/model/api-key';
import type { apiKeyIdSchema, createApiKeySchema, listAppsSchema } from './schemas';
import * as apiKeys from '#data/api-key.repo';

/** A key as its team sees it: never the key, nor its hash; `apps` null when it reaches every application. */
export function apiKeyView(record: ApiKeyRecord & { key_id: string }) {
  return {
    key_id: record.key_id,
    name: record.name ?? null,
    hint: record.hint ?? null,
    role: record.role ?? 'admin',
    apps: record.apps ?? null,
    status: record.status,
    created_at: record.created_at,
    revoked_at: record.revoked_at ?? null,
  };
}

const listed = (record: ApiKeyRecord): record is ApiKeyRecord & { key_id: string } => record.key_id !== undefined;

/**
 * `/apikey/create`: the key is in this answer only. A key limited to
 * applications makes keys within them: without `apps` the new key gets the
 * caller's, and an application outside them is ACCESS_DENIED, as another team's.
 */
export async function createApiKeyRoute(deps: Deps, input: OwnerInput<typeof createApiKeySchema>, caller: CallingKey) {
  const apps = input.apps ? [...new Set(input.apps)] : caller.apps;
  for (const appId of apps ?? []) await ownedApp(deps, input.teamId, appId);
  const { apiKey, record } = await makeApiKey(deps, {
    teamId: input.teamId,
    role: input.role,
    apps,
    name: input.name,
    usageIdentifierKey: caller.usageIdentifierKey,
  });
  return { ...apiKeyView({ ...record, key_id: record.key_id! }), api_key: apiKey };
}

/**
 * `/apikey/list`: the team's keys, oldest first; to a key limited to applications, only
 * the keys limited to some of its own. Keys made before keys had ids are not listed.
 */
export async function listApiKeys(deps: Deps, input: OwnerInput<typeof listAppsSchema>) {
  return (await apiKeys.listByTeam(deps.table, input.teamId))
    .filter(listed)
    .filter((record) => keyInScope(deps, record.apps))
    .map(apiKeyView);
}

/**
 * `/apikey/revoke`: the key stops working once API Gateway's cached decision
 * for it ends (docs/api-keys.md#revoking). An id that is none of the team's
 * keys is ACCESS_DENIED whether or not another team has it, so ids are no
 * oracle; revoking a revoked key answers it again.
 */
export async function revokeApiKeyRoute(deps: Deps, input: OwnerInput<typeof apiKeyIdSchema>) {
  const record = (await apiKeys.listByTeam(deps.table, input.teamId)).find((candidate) => candidate.key_id === input.key_id);
  if (!record || !listed(record)) throw accessDenied();
  const at = iso(deps.clock.now());
  if (!(await apiKeys.revokeOfTeam(deps.table, record.key_hash, input.teamId, at))) throw accessDenied();
  return apiKeyView({ ...record, status: 'revoked', revoked_at: record.revoked_at ?? at });
}

/** `/apikey/current`: what the calling key may do, from the authorizer's verdict alone (no read): the dashboard hides the rest. */
export async function currentApiKey(_deps: Deps, _input: OwnerInput<typeof listAppsSchema>, caller: CallingKey) {
  return { role: caller.role, apps: caller.apps ?? null };
}
