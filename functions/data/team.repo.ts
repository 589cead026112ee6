import * as z from 'zod/mini';
import { getItem, putNew, updateExisting, type Table } from './db';
import { keys } from './keys';

export const teamSchema = z.lazy(() =>
  z.object({
    team_id: z.string(),
    name: z.string(),
    /** null: the plan never expires. */
    plan_expires_at: z.nullable(z.string()),
    created_at: z.string(),
  }),
);
export type Team = z.infer<typeof teamSchema>;

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
