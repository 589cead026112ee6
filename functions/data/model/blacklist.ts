import * as z from 'zod/mini';

export const blacklistTypes = ['country', 'asn', 'ip', 'hwid'] as const;
export type BlacklistType = (typeof blacklistTypes)[number];

/** `value` is stored normalised (see core/http/network.ts), so a lookup is one exact key. */
export const blacklistEntrySchema = z.lazy(() =>
  z.object({
    app_id: z.string(),
    type: z.enum(blacklistTypes),
    value: z.string(),
    reason: z.nullable(z.string()),
    created_at: z.string(),
  }),
);
export type BlacklistEntry = z.infer<typeof blacklistEntrySchema>;

/** A request attribute to look up in an app's blacklist, already normalised. */
export interface BlacklistProbe {
  type: BlacklistType;
  value: string;
}
