import { getItem, putNew, updateExisting, type Table } from './db';
import { keys } from './keys';
import { teamSchema, type Team } from './model/team';

export function createTeamRepo(table: Table) {
  return {
    async get(teamId: string): Promise<Team | undefined> {
      const item = await getItem(table, keys.team(teamId));
      return item ? teamSchema.parse(item) : undefined;
    },

    /** False when a team with that ID exists already. */
    create(team: Team): Promise<boolean> {
      return putNew(table, { ...keys.team(team.team_id), ...team });
    },

    /** False when the team does not exist. */
    setPlanExpiry(teamId: string, planExpiresAt: string | null): Promise<boolean> {
      return updateExisting(table, keys.team(teamId), 'SET plan_expires_at = :value', { ':value': planExpiresAt });
    },
  };
}
