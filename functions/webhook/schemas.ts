import * as z from 'zod/mini';
import { appIdField, webhookIdField } from '#core/domain/fields';
import { eventTypes } from '../events/derive';

/**
 * An http(s) URL; whether this deployment may send to it (https only on AWS,
 * no private or reserved address) is checked by the action against the
 * target rules (docs/webhooks.md#targets).
 */
const urlField = z.lazy(() =>
  z.string().check(
    z.maxLength(2048),
    z.refine((value) => URL.canParse(value) && ['https:', 'http:'].includes(new URL(value).protocol), 'must be an https URL'),
  ),
);

/** Event types, or `["*"]` for every type (docs/webhooks.md#endpoints). */
const eventsField = z.lazy(() =>
  z.array(z.enum([...eventTypes, '*'])).check(
    z.minLength(1),
    z.maxLength(eventTypes.length),
    z.refine((events) => !events.includes('*') || events.length === 1, 'must be event types, or ["*"] alone'),
    z.refine((events) => new Set(events).size === events.length, 'must not name a type twice'),
  ),
);

const descriptionField = z.lazy(() => z.string().check(z.maxLength(500)));

export const createWebhookSchema = z.lazy(() =>
  z.object({
    app_id: appIdField,
    url: urlField,
    events: eventsField,
    description: z.optional(descriptionField),
  }),
);

export const listWebhooksSchema = z.lazy(() => z.object({ app_id: appIdField }));

export const updateWebhookSchema = z.lazy(() =>
  z.object({
    webhook_id: webhookIdField,
    url: z.optional(urlField),
    events: z.optional(eventsField),
    description: z.optional(descriptionField),
    enabled: z.optional(z.boolean()),
  }),
);

export const webhookIdSchema = z.lazy(() => z.object({ webhook_id: webhookIdField }));

export const deliveryStates = ['pending', 'delivered', 'failed'] as const;

export const deliveriesSchema = z.lazy(() =>
  z.object({
    webhook_id: webhookIdField,
    state: z.optional(z.enum(deliveryStates)),
    per_page: z._default(z.int().check(z.minimum(1), z.maximum(100)), 25),
    cursor: z.nullish(z.string().check(z.maxLength(512))),
  }),
);

export const redeliverSchema = z.lazy(() =>
  z.object({
    delivery_id: z.string().check(z.regex(/^[0-9A-Fa-f-]{36}\.\d{13}-[0-9a-f]{16}$/, 'must be a delivery_id from /webhook/deliveries'), z.overwrite((id) => id.toLowerCase())),
  }),
);
