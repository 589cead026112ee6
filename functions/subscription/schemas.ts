import * as z from 'zod';
import { appIdField, subscriptionIdField } from '#core/fields';

const name = z.string().trim().min(1).max(100);
const level = z.number().int().min(0).max(1_000_000);

export const createSubscriptionSchema = z.object({
  app_id: appIdField,
  name,
  level,
  single_key_per_hwid: z.boolean().default(false),
});
export type CreateSubscriptionInput = z.infer<typeof createSubscriptionSchema>;

export const editSubscriptionSchema = z
  .object({
    subscription_id: subscriptionIdField,
    name: name.optional(),
    level: level.optional(),
    single_key_per_hwid: z.boolean().optional(),
    status: z.enum(['active', 'inactive']).optional(),
  })
  .refine(
    (body) => [body.name, body.level, body.single_key_per_hwid, body.status].some((field) => field !== undefined),
    'at least one of name, level, single_key_per_hwid, status is required',
  );
export type EditSubscriptionInput = z.infer<typeof editSubscriptionSchema>;

export const deleteSubscriptionSchema = z.object({ subscription_id: subscriptionIdField });
export type DeleteSubscriptionInput = z.infer<typeof deleteSubscriptionSchema>;

export const listSubscriptionsSchema = z.object({ app_id: appIdField });
export type ListSubscriptionsInput = z.infer<typeof listSubscriptionsSchema>;
