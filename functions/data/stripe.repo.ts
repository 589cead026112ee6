import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { batchGetItems, itemId } from './batch-get';
import { deleteExisting, getItem, stampUpdate, transactWrite, type Table, type TransactItem } from './db';
import { keys, type ItemKey } from './keys';
import { licenseItem, parseLicense, type License } from './license.repo';
import { cancellationCodes } from './retry';

/** What one Stripe price makes: a license of this tier for this long (docs/stripe.md, "The price map"). */
export const priceMappingSchema = z.lazy(() =>
  z.object({
    subscription_id: z.string(),
    duration_unit: z.enum(['seconds', 'minutes', 'hours', 'days', 'weeks', 'months', 'years']),
    duration_value: z.int(),
    max_devices: z.optional(z.int()),
    features: z.optional(z.array(z.string())),
    hwid_lock: z.optional(z.boolean()),
  }),
);
export type PriceMapping = z.infer<typeof priceMappingSchema>;

/** An application's Stripe connection as stored: both secrets only as the key vault's ciphertexts. */
export const stripeConnectionSchema = z.lazy(() =>
  z.object({
    app_id: z.string(),
    team_id: z.string(),
    webhook_secret_ciphertext: z.string(),
    api_key_ciphertext: z.string(),
    /** The secret's first and last characters, which is all `/integration/stripe/get` shows of it. */
    webhook_secret_hint: z.string(),
    prices: z.record(z.string(), priceMappingSchema),
    created_at: z.string(),
    updated_at: z.string(),
  }),
);
export type StripeConnection = z.infer<typeof stripeConnectionSchema>;

/** Where a Checkout Session's licenses came from, recorded with each Stripe object that session made. */
export interface StripeOrigin {
  checkoutSession: string;
  /** The session's Stripe ids the licenses are found by later: the session's own, its subscription's, payment's and first invoice's. */
  stripeIds: string[];
}

/** How long the mark of an applied event is kept: Stripe sends an event again for 3 days at most, and keeps events 30 days. */
export const stripeEventMarkDays = 90;

/** A Stripe event applied (part of it, for a big session): the mark's put fails when it was applied before. */
export type EventWrite = 'applied' | 'already_applied';

export function createStripeRepo(table: Table) {
  const mark = (appId: string, eventId: string, part: number, now: Date): TransactItem => ({
    Put: {
      TableName: table.name,
      Item: { ...keys.stripeEvent(appId, eventId, part), ttl: Math.floor(now.getTime() / 1000) + stripeEventMarkDays * 86400 },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  });

  /**
   * The mark first, then the writes, in one transaction: applied once however
   * often and however concurrently Stripe sends the event. A resent attempt of
   * the same request carries the same token and is answered as applied; another
   * request for the same event meets the mark. When another item's condition
   * failed, its reason codes are returned for the caller to judge.
   */
  const applyOnce = async (marked: TransactItem, writes: TransactItem[]): Promise<EventWrite | (string | undefined)[]> => {
    try {
      await transactWrite(table, [marked, ...writes]);
      return 'applied';
    } catch (error) {
      const codes = cancellationCodes(error);
      if (!codes?.includes('ConditionalCheckFailed')) throw error;
      return codes[0] === 'ConditionalCheckFailed' ? 'already_applied' : codes;
    }
  };

  return {
    async getConnection(appId: string): Promise<StripeConnection | undefined> {
      const item = await getItem(table, keys.stripeConnection(appId));
      return item ? stripeConnectionSchema.parse(item) : undefined;
    },

    /**
     * Connects or replaces the connection. Every value set is the request's own,
     * so a resent attempt writes the same again; `created_at` stays the first
     * connection's.
     */
    async putConnection(connection: StripeConnection): Promise<StripeConnection> {
      const { created_at, ...fields } = connection;
      const names = Object.fromEntries(Object.keys(fields).map((name) => [`#${name}`, name]));
      const values = Object.fromEntries(Object.entries(fields).map(([name, value]) => [`:${name}`, value]));
      const { Attributes } = await table.doc.send(
        new UpdateCommand(
          stampUpdate(table, {
            TableName: table.name,
            Key: keys.stripeConnection(connection.app_id),
            UpdateExpression: `SET ${Object.keys(fields).map((name) => `#${name} = :${name}`).join(', ')}, created_at = if_not_exists(created_at, :created_at)`,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ...values, ':created_at': created_at },
            ReturnValues: 'ALL_NEW',
          }),
        ),
      );
      return stripeConnectionSchema.parse(Attributes);
    },

    /** False when there was no connection. */
    deleteConnection(appId: string): Promise<boolean> {
      return deleteExisting(table, keys.stripeConnection(appId));
    },

    /** The keys of the licenses made for a Stripe object of the application, oldest first; none when it made none. */
    async licenseKeysOf(appId: string, stripeId: string): Promise<string[]> {
      const item = await getItem(table, keys.stripeLicenses(appId, stripeId));
      return z.optional(z.array(z.string())).parse(item?.license_keys) ?? [];
    },

    /** Licenses by their keys in the shared namespace (Stripe's licenses have generated keys); deleted ones are left out. */
    async licenses(licenseKeys: string[]): Promise<License[]> {
      const wanted: ItemKey[] = licenseKeys.map((key) => keys.license(key));
      const found = await batchGetItems(table, wanted, { consistentRead: true });
      return wanted.flatMap((key) => {
        const item = found.get(itemId(key));
        return item ? [parseLicense(item)] : [];
      });
    },

    /**
     * New licenses of a Checkout Session, with their keys recorded under each
     * of the session's Stripe ids, once per event part. The reason codes come
     * back when a license key was taken (the caller makes new keys).
     */
    createLicenses(eventId: string, part: number, origin: StripeOrigin, licenses: License[], now: Date): Promise<EventWrite | (string | undefined)[]> {
      const appId = licenses[0]!.app_id;
      const licenseKeys = licenses.map((license) => license.key);
      const records: TransactItem[] = origin.stripeIds.map((stripeId) => ({
        Update: {
          TableName: table.name,
          Key: keys.stripeLicenses(appId, stripeId),
          UpdateExpression: 'SET license_keys = list_append(if_not_exists(license_keys, :none), :keys), checkout_session = :session',
          ExpressionAttributeValues: { ':none': [], ':keys': licenseKeys, ':session': origin.checkoutSession },
        },
      }));
      const puts: TransactItem[] = licenses.map((license) => ({
        Put: { TableName: table.name, Item: licenseItem(license), ConditionExpression: 'attribute_not_exists(pk)' },
      }));
      return applyOnce(mark(appId, eventId, part, now), [...puts, ...records]);
    },

    /**
     * Sets fields of licenses as read, once per event part: each license must
     * still belong to its team and hold `expected` as read, else the reason
     * codes come back and the caller reads again.
     */
    updateLicenses(
      appId: string,
      eventId: string,
      part: number,
      changes: { license: License; set: Partial<Pick<License, 'status' | 'expires_at'>>; expected: Partial<Pick<License, 'expires_at'>> }[],
      now: Date,
    ): Promise<EventWrite | (string | undefined)[]> {
      const updates: TransactItem[] = changes.map(({ license, set, expected }) => {
        const names: Record<string, string> = {};
        const values: Record<string, unknown> = { ':team': license.team_id };
        const assignments = Object.entries(set).map(([name, value]) => {
          names[`#${name}`] = name;
          values[`:${name}`] = value;
          return `#${name} = :${name}`;
        });
        const conditions = ['team_id = :team'];
        for (const [name, value] of Object.entries(expected)) {
          names[`#${name}`] = name;
          values[`:was_${name}`] = value;
          conditions.push(`#${name} = :was_${name}`);
        }
        return {
          Update: {
            TableName: table.name,
            Key: keys.license(license.key),
            UpdateExpression: `SET ${assignments.join(', ')}`,
            ConditionExpression: conditions.join(' AND '),
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
          },
        };
      });
      return applyOnce(mark(appId, eventId, part, now), updates);
    },
  };
}
