import * as z from 'zod/mini';

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
