import * as z from 'zod/mini';

/**
 * Username index: unique per application, case-insensitive (the key is
 * lower-cased). It holds the bcrypt hash so a login by username reads one item
 * before it knows the license.
 */
export const usernameIndexSchema = z.lazy(() =>
  z.object({
    app_id: z.string(),
    /** As the user registered it; the key holds the lower-cased form. */
    username: z.string(),
    license_key: z.string(),
    password_hash: z.string(),
  }),
);
export type UsernameIndex = z.infer<typeof usernameIndexSchema>;
