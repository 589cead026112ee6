import { defaultRole, type Role } from '#shared/roles';
import type { Deps } from '../deps';
import { ManagementError } from './errors';
import { constantTimeEqual, isApiKeyFormat, sha256Hex } from '../ids';
import * as apiKeys from '#data/api-key.repo';

export interface Owner {
  teamId: string;
  /** The API Gateway key to meter this owner under, when the stack created one. */
  usageIdentifierKey: string | undefined;
  /** Who this key's changes are recorded as (events' `actor`): never the key, nor enough of its hash to find it. */
  actor: string;
  /** What the key may call (functions/access.ts); a key from before roles is `admin`. */
  role: Role;
  /** The applications the key may reach; undefined: every application of the team. */
  apps: readonly string[] | undefined;
}

export const apiKeyActor = (keyHash: string): string => `api_key:${keyHash.slice(0, 8)}`;

export const missingApiKey = () => new ManagementError('MISSING_AUTH');
export const invalidApiKey = () => new ManagementError('INVALID_API_KEY');

/**
 * Resolves an `x-api-key` to its owner. The lookup is by SHA-256, so the stored
 * item never holds the key; the hash comparison is constant-time all the same.
 */
export async function authenticateApiKey(deps: Pick<Deps, 'table'>, apiKey: string | undefined): Promise<Owner> {
  if (!apiKey) throw missingApiKey();
  // A string no key can look like costs no DynamoDB read: unauthenticated floods stay in the Lambda.
  if (!isApiKeyFormat(apiKey)) throw invalidApiKey();
  const hash = sha256Hex(apiKey);
  const record = await apiKeys.get(deps.table, hash);
  if (!record || !constantTimeEqual(record.key_hash, hash) || record.status !== 'active') throw invalidApiKey();
  return {
    teamId: record.team_id,
    usageIdentifierKey: record.usage_identifier_key,
    actor: apiKeyActor(hash),
    role: record.role ?? defaultRole,
    apps: record.apps,
  };
}
