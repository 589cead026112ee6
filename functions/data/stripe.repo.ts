import { batchGetItems, itemId } from './batch-get';
import { conditional, deleteExisting, deleteItem, getItem, putItem, transactWrite, updateItem, type Table, type TransactItem } from './db';
import { assignments, condition, conditions, equalities, part, Update } from './expressions';
import { keys, type ItemKey } from './keys';
import { trialTag } from './model/trial';
import { licenseItem } from './items';
import { parseLicense, type License } from './model/license';
import { stripeConnectionSchema, stripeLicenseKeysSchema, stripeEventMarkDays, type EventWrite, type StripeConnection, type StripeOrigin } from './model/stripe';

export async function getConnection(table: Table, appId: string): Promise<StripeConnection | undefined> {
  const item = await getItem(table, keys.stripeConnection(appId));
  return item ? stripeConnectionSchema.parse(item) : undefined;
}

/**
 * Connects or replaces the connection. Every value set is the request's own,
 * so a resent attempt writes the same again; `created_at` stays the first
 * connection's.
 */
export async function putConnection(table: Table, connection: StripeConnection): Promise<StripeConnection> {
  const { created_at, ...fields } = connection;
  const names = Object.fromEntries(Object.keys(fields).map((name) => [`#${name}`, name]));
  const values = Object.fromEntries(Object.entries(fields).map(([name, value]) => [`:${name}`, value]));
  const { Attributes } = await updateItem(table, keys.stripeConnection(connection.app_id), {
    UpdateExpression: `SET ${Object.keys(fields).map((name) => `#${name} = :${name}`).join(', ')}, created_at = if_not_exists(created_at, :created_at)`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: { ...values, ':created_at': created_at },
    ReturnValues: 'ALL_NEW',
  });
  return stripeConnectionSchema.parse(Attributes);
}

/** False when there was no connection. */
export function deleteConnection(table: Table, appId: string): Promise<boolean> {
  return deleteExisting(table, keys.stripeConnection(appId));
}

/** The keys of the licenses made for a Stripe object of the application, oldest first; none when it made none. */
export async function licenseKeysOf(table: Table, appId: string, stripeId: string): Promise<string[]> {
  const item = await getItem(table, keys.stripeLicenses(appId, stripeId));
  return stripeLicenseKeysSchema.parse(item?.license_keys) ?? [];
}

/**
 * Claims the sending of a Checkout Session's purchase email under `claim` (a
 * fresh id per delivery): true when this delivery is to send it. Taken while
 * another delivery's claim is younger than `staleBefore` or the message went
 * out. A resent put that the store applied finds its own claim and is still
 * this delivery's.
 */
export async function claimPurchaseEmail(table: Table, appId: string, sessionId: string, claim: string, now: Date, staleBefore: Date): Promise<boolean> {
  const mark = { ...keys.stripePurchaseEmail(appId, sessionId), app_id: appId, state: 'sending', claim, claimed_at: now.toISOString() };
  const free = part('attribute_not_exists(pk) OR (#state = :sending AND claimed_at < :stale)', { ':sending': 'sending', ':stale': staleBefore.toISOString() }, { '#state': 'state' });
  const written = await conditional(putItem(table, mark, { condition: condition(free), oldOnFailure: true }));
  return written.held || written.item?.claim === claim;
}

/** The message went out: later deliveries find the mark and send nothing. Setting the same again changes nothing. */
export async function purchaseEmailSent(table: Table, appId: string, sessionId: string, claim: string, at: Date): Promise<void> {
  const sent = new Update().set(part('#state = :sent', { ':sent': 'sent' }, { '#state': 'state' }), part('sent_at = :at', { ':at': at.toISOString() })).when(part('claim = :claim', { ':claim': claim }));
  await conditional(updateItem(table, keys.stripePurchaseEmail(appId, sessionId), sent.input()));
}

/** Sending failed: the claim is given up so that Stripe's redelivery sends the message. Gone already: nothing to do. */
export async function releasePurchaseEmail(table: Table, appId: string, sessionId: string, claim: string): Promise<void> {
  await conditional(deleteItem(table, keys.stripePurchaseEmail(appId, sessionId), condition(part('claim = :claim AND #state = :sending', { ':claim': claim, ':sending': 'sending' }, { '#state': 'state' }))));
}

/** Licenses by their keys in the shared namespace (Stripe's licenses have generated keys); deleted ones are left out. */
export async function licenses(table: Table, licenseKeys: string[]): Promise<License[]> {
  const wanted: ItemKey[] = licenseKeys.map((key) => keys.license(key));
  const found = await batchGetItems(table, wanted, { consistentRead: true });
  return wanted.flatMap((key) => {
    const item = found.get(itemId(key));
    return item ? [parseLicense(item)] : [];
  });
}

/**
 * New licenses of a Checkout Session, with their keys recorded under each
 * of the session's Stripe ids, once per event part. The reason codes come
 * back when a license key was taken (the caller makes new keys).
 */
export function createLicenses(table: Table, eventId: string, part: number, origin: StripeOrigin, licenses: License[], now: Date): Promise<EventWrite | (string | undefined)[]> {
  const appId = licenses[0]!.app_id;
  const puts: TransactItem[] = licenses.map((license) => ({
    Put: { TableName: table.name, Item: licenseItem(license), ConditionExpression: 'attribute_not_exists(pk)' },
  }));
  return applyOnce(table, mark(table, appId, eventId, part, now), [...puts, ...records(table, appId, origin, licenses)]);
}

/** The licenses' keys recorded under each of the session's Stripe ids, after those recorded before. */
function records(table: Table, appId: string, origin: StripeOrigin, licenses: License[]): TransactItem[] {
  return origin.stripeIds.map((stripeId) => ({
    Update: {
      TableName: table.name,
      Key: keys.stripeLicenses(appId, stripeId),
      UpdateExpression: 'SET license_keys = list_append(if_not_exists(license_keys, :none), :keys), checkout_session = :session',
      ExpressionAttributeValues: { ':none': [], ':keys': licenses.map((license) => license.key), ':session': origin.checkoutSession },
    },
  }));
}

/**
 * A trial bought: the license, as read, becomes `after` in place, once per
 * event part, with its key recorded as the session's like a license made for
 * it. It must still be a trial of the same team and tier, else the reason
 * codes come back and the caller makes a new license instead.
 */
export function convertTrial(table: Table, eventId: string, part: number, origin: StripeOrigin, before: License, after: License, now: Date): Promise<EventWrite | (string | undefined)[]> {
  const fields = ['subscription_id', 'initial_duration', 'expires_at', 'max_devices', 'hwid_lock', 'tags', 'metadata', 'features'] as const;
  // The buyer's email, when the purchase had one that is an address, replaces the trial's.
  const email = after.email === undefined ? {} : { email: after.email };
  const update = new Update()
    .set(assignments({ ...Object.fromEntries(fields.map((field) => [field, after[field]])), ...email }))
    .when(conditions.exists, equalities({ team_id: before.team_id, app_id: before.app_id, subscription_id: before.subscription_id }), conditions.tagged(trialTag));
  const converted: TransactItem = { Update: { TableName: table.name, Key: keys.license(before.key), ...update.input() } };
  return applyOnce(table, mark(table, after.app_id, eventId, part, now), [converted, ...records(table, after.app_id, origin, [after])]);
}

/**
 * Sets fields of licenses as read, once per event part: each license must
 * still belong to its team and hold `expected` as read, else the reason
 * codes come back and the caller reads again.
 */
export function updateLicenses(table: Table, 
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
  return applyOnce(table, mark(table, appId, eventId, part, now), updates);
}

/** Marks one part of a Stripe event as applied. */
function mark(table: Table, appId: string, eventId: string, part: number, now: Date): TransactItem {
  return {
    Put: {
      TableName: table.name,
      Item: { ...keys.stripeEvent(appId, eventId, part), ttl: Math.floor(now.getTime() / 1000) + stripeEventMarkDays * 86400 },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/**
 * The mark first, then the writes, in one transaction: applied once however
 * often and however concurrently Stripe sends the event. A resent attempt of
 * the same request carries the same token and is answered as applied; another
 * request for the same event meets the mark. When another item's condition
 * failed, its reason codes are returned for the caller to judge.
 */
async function applyOnce(table: Table, marked: TransactItem, writes: TransactItem[]): Promise<EventWrite | (string | undefined)[]> {
  const written = await conditional(transactWrite(table, [marked, ...writes]));
  if (written.held) return 'applied';
  return written.reasons[0] === 'ConditionalCheckFailed' ? 'already_applied' : written.reasons;
}
