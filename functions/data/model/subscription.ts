import * as z from 'zod/mini';
import { usageLimitField } from '#shared/entitlements';

export const subscriptionSchema = z.lazy(() =>
  z.object({
    subscription_id: z.string(),
    app_id: z.string(),
    team_id: z.string(),
    name: z.string(),
    level: z.int(),
    single_key_per_hwid: z.boolean(),
    status: z.enum(['active', 'inactive']),
    created_at: z.string(),
    /** Entitlements and grace (docs/licensing-models.md); absent on items written before they existed: none, none, 0. */
    features: z.optional(z.array(z.string())),
    usage_limits: z.optional(z.record(z.string(), usageLimitField)),
    grace_seconds: z.optional(z.int().check(z.nonnegative())),
  }),
);
export type Subscription = z.infer<typeof subscriptionSchema>;

export type SubscriptionSettings = Pick<Subscription, 'name' | 'level' | 'single_key_per_hwid' | 'status' | 'features' | 'usage_limits' | 'grace_seconds'>;
