import { batchGetItems } from './batch-get';
import { conditional, deleteExisting, getItem, putNew, queryIndexPartition, updateItem, type Table } from './db';
import { assignments } from './expressions';
import { keys } from './keys';
import { subscriptionSchema, type Subscription, type SubscriptionSettings } from './model/subscription';

export function subscriptionItem(subscription: Subscription): Record<string, unknown> {
  return {
    ...keys.subscription(subscription.subscription_id),
    ...keys.subscriptionByApp(subscription.app_id, subscription.created_at, subscription.subscription_id),
    ...subscription,
  };
}

export async function get(table: Table, subscriptionId: string): Promise<Subscription | undefined> {
  const item = await getItem(table, keys.subscription(subscriptionId));
  return item ? subscriptionSchema.parse(item) : undefined;
}

/** Subscriptions by id; a missing (deleted) one is absent from the map. */
export async function getMany(table: Table, subscriptionIds: string[]): Promise<Map<string, Subscription>> {
  const items = await batchGetItems(table, subscriptionIds.map((id) => keys.subscription(id)));
  const subscriptions = [...items.values()].map((item) => subscriptionSchema.parse(item));
  return new Map(subscriptions.map((subscription) => [subscription.subscription_id, subscription]));
}

export function create(table: Table, subscription: Subscription): Promise<boolean> {
  return putNew(table, subscriptionItem(subscription));
}

/** An app has a handful of tiers: one query reads them all, oldest first. */
export async function listByApp(table: Table, appId: string): Promise<Subscription[]> {
  return (await queryIndexPartition(table, keys.subscriptionsOfApp(appId))).map((item) => subscriptionSchema.parse(item));
}

/** Undefined when the subscription is gone; never recreates a deleted one. */
export async function update(table: Table, subscriptionId: string, fields: Partial<SubscriptionSettings>): Promise<Subscription | undefined> {
  const set = assignments(fields);
  const written = await conditional(
    updateItem(table, keys.subscription(subscriptionId), {
      UpdateExpression: `SET ${set.text}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: set.names,
      ExpressionAttributeValues: set.values,
      ReturnValues: 'ALL_NEW',
    }),
  );
  return written.held ? subscriptionSchema.parse(written.answer.Attributes) : undefined;
}

/** False when there was no such subscription. */
export function remove(table: Table, subscriptionId: string): Promise<boolean> {
  return deleteExisting(table, keys.subscription(subscriptionId));
}
