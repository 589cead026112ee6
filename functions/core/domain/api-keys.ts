import { iso } from '#shared/clock';
import type { Role } from '#shared/roles';
import type { Deps } from '../deps';
import type { ApiKeyRecord } from '#data/model/api-key';
import { newApiKey, newId, sha256Hex } from '../ids';
import * as apiKeys from '#data/api-key.repo';

/** How many characters of a key its listing shows: `lsk_` and four random ones, too few to find or guess it by. */
const hintLength = 8;

export interface NewApiKey {
  teamId: string;
  role: Role;
  apps?: readonly string[];
  name?: string;
  /** The API Gateway key the team is metered under (deployed stacks): all of a team's keys share it. */
  usageIdentifierKey?: string;
}

/** The key, shown to its maker this once, and the record stored of it: its hash, never the key. */
export async function makeApiKey(deps: Pick<Deps, 'table' | 'clock'>, input: NewApiKey): Promise<{ apiKey: string; record: ApiKeyRecord }> {
  const apiKey = newApiKey();
  const record: ApiKeyRecord = {
    key_hash: sha256Hex(apiKey),
    team_id: input.teamId,
    status: 'active',
    created_at: iso(deps.clock.now()),
    key_id: newId(),
    role: input.role,
    hint: apiKey.slice(0, hintLength),
    ...(input.apps ? { apps: [...input.apps] } : {}),
    ...(input.name === undefined ? {} : { name: input.name }),
    ...(input.usageIdentifierKey ? { usage_identifier_key: input.usageIdentifierKey } : {}),
  };
  // A new key and id each time: the condition fails only when a retried put had already written this very item, which putNew counts as written.
  if (!(await apiKeys.create(deps.table, record))) throw new Error('a new API key collided with a stored one');
  return { apiKey, record };
}
