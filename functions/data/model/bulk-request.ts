import * as z from 'zod/mini';

/**
 * What a `/license/create-bulk` with a `request_id` set out to make: its
 * generated keys, its creation time and its reset rules, so the same request
 * sent again makes exactly these licenses, and `body_hash` tells a request
 * sent again from another one under the same `request_id`.
 */
export const createBulkPlanSchema = z.lazy(() =>
  z.object({
    license_keys: z.array(z.string()),
    created_at: z.string(),
    hwid_reset_allowed: z.boolean(),
    hwid_reset_interval: z.number(),
    body_hash: z.string(),
    /** The chunks of `license_keys` (by index) written so far: a request sent again skips them. */
    written_chunks: z.optional(z.set(z.number())),
  }),
);
export type CreateBulkPlan = z.infer<typeof createBulkPlanSchema>;
