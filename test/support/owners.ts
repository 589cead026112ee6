import type { Deps } from '#core/deps';
import * as owners from '../../functions/admin/owners';

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
