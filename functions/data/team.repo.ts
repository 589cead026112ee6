import { getItem, putNew, updateExisting, type Table } from './db';
import { keys } from './keys';
import { teamSchema, type Team } from './model/team';

export async function get(table: Table, teamId: string): Promise<Team | undefined> {
  const item = await getItem(table, keys.team(teamId));
  return item ? teamSchema.parse(item) : undefined;
}

/** False when a team with that ID exists already. */
export function create(table: Table, team: Team): Promise<boolean> {
  return putNew(table, { ...keys.team(team.team_id), ...team });
}

/** False when the team does not exist. */
export function setPlanExpiry(table: Table, teamId: string, planExpiresAt: string | null): Promise<boolean> {
  return updateExisting(table, keys.team(teamId), 'SET plan_expires_at = :value', { ':value': planExpiresAt });
}
