import * as z from 'zod/mini';

/** At most this many endpoints per application (docs/webhooks.md#endpoints). */
export const maxWebhooksPerApp = 10;

export const webhookSchema = z.lazy(() =>
  z.object({
    webhook_id: z.string(),
    app_id: z.string(),
    team_id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string(),
    enabled: z.boolean(),
    created_at: z.string(),
    /** The signing secret, encrypted by the key vault under the app's id: never shown again after create or rotate-secret. */
    secret_ciphertext: z.string(),
    /** The first failed attempt since the endpoint's last success. */
    failing_since: z.optional(z.string()),
    /** Deliveries that ended `failed` since the endpoint's last success. */
    failed_deliveries: z.optional(z.int()),
    /** Set when the delivery function disabled the endpoint; an owner's update clears it. */
    disabled_reason: z.optional(z.string()),
  }),
);
export type Webhook = z.infer<typeof webhookSchema>;

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export const deliverySchema = z.lazy(() =>
  z.object({
    delivery_id: z.string(),
    webhook_id: z.string(),
    app_id: z.string(),
    event_id: z.string(),
    type: z.string(),
    /** The body every attempt sends: the same bytes each time. */
    payload: z.string(),
    state: z.enum(['pending', 'delivered', 'failed']),
    /** Attempts begun. */
    attempts: z.int(),
    /** Attempts whose outcome is recorded: `attempts` or one less while an attempt runs. */
    settled: z.int(),
    /** Epoch milliseconds until which the attempt begun last belongs to the worker that began it. */
    lease_until: z.optional(z.number()),
    last_status: z.nullable(z.int()),
    last_error: z.nullable(z.string()),
    next_attempt_at: z.nullable(z.string()),
    created_at: z.string(),
  }),
);
export type Delivery = z.infer<typeof deliverySchema>;

/** What a delivery id names: its endpoint and its place in the endpoint's log. */
export interface DeliveryRef {
  webhookId: string;
  position: string;
}

/** `<webhook id>.<position>`: the id alone finds the item, and the ids sort as the log does. */
export const deliveryIds = {
  of: (ref: DeliveryRef): string => `${ref.webhookId}.${ref.position}`,
  parse: (deliveryId: string): DeliveryRef | undefined => {
    const match = /^([0-9a-f-]{36})\.(\d{13}-[0-9a-f]{16})$/.exec(deliveryId);
    return match ? { webhookId: match[1]!, position: match[2]! } : undefined;
  },
};

/** An attempt's outcome, as the log keeps it. */
export interface AttemptOutcome {
  state: DeliveryState;
  status: number | null;
  error: string | null;
  nextAttemptAt: string | null;
}

/** What the endpoint's record learns from an outcome (webhook/delivery's disabling rule). */
export type EndpointChange =
  | { kind: 'none' }
  | { kind: 'recovered' }
  | { kind: 'failing'; since: string; deliveryFailed: boolean; disable?: string };

export type Claim = { kind: 'claimed'; delivery: Delivery } | { kind: 'busy' } | { kind: 'stale'; delivery?: Delivery };
