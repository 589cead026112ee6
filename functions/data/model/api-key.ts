import * as z from 'zod/mini';
import { roles } from '#shared/roles';

/**
 * The key itself is never stored: only its SHA-256, which is also the lookup
 * key. Keys made before roles have no role, id, name or hint, and no entry in
 * the team's listing: they keep full rights (functions/access.ts).
 */
export const apiKeySchema = z.lazy(() =>
  z.object({
    key_hash: z.string(),
    team_id: z.string(),
    status: z.enum(['active', 'revoked']),
    created_at: z.string(),
    /** Value of the API Gateway key this key is metered under (deployed stacks only). */
    usage_identifier_key: z.optional(z.string()),
    /** What owners name a key by: never its hash. */
    key_id: z.optional(z.string()),
    role: z.optional(z.enum(roles)),
    /** The applications the key may reach; absent: all of the team's. */
    apps: z.optional(z.array(z.string())),
    name: z.optional(z.string()),
    /** The key's first characters, so an owner can tell keys apart without the key. */
    hint: z.optional(z.string()),
    revoked_at: z.optional(z.string()),
  }),
);
export type ApiKeyRecord = z.infer<typeof apiKeySchema>;
