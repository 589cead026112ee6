import type { Deps } from '#core/deps';
import * as owners from '../../functions/admin/owners';
import type { Role } from '#shared/roles';
import { makeApiKey } from '#core/domain/api-keys';
import { startTestServer, type TestServer } from './env';

export interface Owner {
  team_id: string;
  app_id: string;
  api_key: string;
  /** Header set for management calls as this owner. */
  auth: Record<string, string>;
}

/** A team with an active app and an API key, as `npm run admin -- bootstrap` makes it. */
export async function createOwner(deps: Deps): Promise<Owner> {
  const owner = await owners.bootstrap(deps);
  return { ...owner, auth: { 'x-api-key': owner.api_key } };
}

/** Another API key of the owner's team, with a role and optionally limited to applications (docs/api-keys.md). */
export async function keyOf(deps: Deps, owner: Pick<Owner, 'team_id'>, role: Role, apps?: string[]): Promise<{ key_id: string; auth: Record<string, string> }> {
  const { apiKey, record } = await makeApiKey(deps, { teamId: owner.team_id, role, apps });
  return { key_id: record.key_id!, auth: { 'x-api-key': apiKey } };
}

/**
 * A value made before a test file's tests (in a `beforeAll`, in the order
 * these calls come), handed out at once as the object it becomes: read it in
 * tests and hooks, not at the file's top level.
 */
export function madeBeforeAll<T extends object>(make: () => Promise<T>): T {
  const made = {} as T;
  beforeAll(async () => {
    Object.assign(made, await make());
  });
  return made;
}

/**
 * What most integration test files begin with: a test server (`options` as
 * `startTestServer` takes them) and an owner on it, made before the file's
 * tests; the server is closed after them.
 */
export function withOwner(options?: Parameters<typeof startTestServer>[0]): { env: TestServer; owner: Owner } {
  const env = madeBeforeAll(() => startTestServer(options));
  const owner = madeBeforeAll(() => createOwner(env.deps));
  afterAll(() => env.close());
  return { env, owner };
}
