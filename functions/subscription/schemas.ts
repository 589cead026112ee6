import * as z from 'zod/mini';
import { appIdField, subscriptionIdField } from '#core/domain/fields';

const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(100));
const level = z.int().check(z.minimum(0), z.maximum(1_000_000));

export const createSubscriptionSchema = z.object({
  app_id: appIdField,
  name,
  level,
  single_key_per_hwid: z._default(z.boolean(), false),
});

export const editSubscriptionSchema = z
  .object({
    subscription_id: subscriptionIdField,
    name: z.optional(name),
    level: z.optional(level),
    single_key_per_hwid: z.optional(z.boolean()),
    status: z.optional(z.enum(['active', 'inactive'])),
  })
  .check(
    z.refine(
      (body) => [body.name, body.level, body.single_key_per_hwid, body.status].some((field) => field !== undefined),
      'at least one of name, level, single_key_per_hwid, status is required',
    ),
  );

export const deleteSubscriptionSchema = z.object({ subscription_id: subscriptionIdField });

export const listSubscriptionsSchema = z.object({ app_id: appIdField });
