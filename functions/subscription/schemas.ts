import * as z from 'zod/mini';
import { appIdField, nameField as name, subscriptionIdField } from '#core/domain/fields';
import { featuresField, graceSecondsField, usageLimitsField } from '#shared/entitlements';

const level = z.lazy(() => z.int().check(z.minimum(0), z.maximum(1_000_000)));

export const createSubscriptionSchema = z.lazy(() =>
  z.object({
    app_id: appIdField,
    name,
    level,
    single_key_per_hwid: z._default(z.boolean(), false),
    features: z._default(featuresField, []),
    usage_limits: z._default(usageLimitsField, {}),
    grace_seconds: z._default(graceSecondsField, 0),
  }),
);

export const editSubscriptionSchema = z.lazy(() =>
  z
    .object({
      subscription_id: subscriptionIdField,
      name: z.optional(name),
      level: z.optional(level),
      single_key_per_hwid: z.optional(z.boolean()),
      status: z.optional(z.enum(['active', 'inactive'])),
      features: z.optional(featuresField),
      usage_limits: z.optional(usageLimitsField),
      grace_seconds: z.optional(graceSecondsField),
    })
    .check(
      z.refine(
        (body) =>
          [body.name, body.level, body.single_key_per_hwid, body.status, body.features, body.usage_limits, body.grace_seconds].some(
            (field) => field !== undefined,
          ),
        'at least one of name, level, single_key_per_hwid, status, features, usage_limits, grace_seconds is required',
      ),
    ),
);

export const deleteSubscriptionSchema = z.lazy(() => z.object({ subscription_id: subscriptionIdField }));

export const listSubscriptionsSchema = z.lazy(() => z.object({ app_id: appIdField }));
