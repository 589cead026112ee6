import { boundedList, conditional, getItem, putItem, queryIndexPartition, stampUpdate, transactWrite, updateItem, type Table } from './db';
import { assignments, condition, conditions } from './expressions';
import { keys } from './keys';
import { deliveryIds, deliverySchema, maxWebhooksPerApp, webhookSchema, type AttemptOutcome, type Claim, type Delivery, type DeliveryRef, type DeliveryState, type EndpointChange, type Webhook } from './model/webhook';

const parseWebhook = (item: Record<string, unknown>): Webhook => webhookSchema.parse(item);

const deliveryKey = (ref: DeliveryRef) => keys.delivery(ref.webhookId, ref.position);

/** False when the app has its maximum of endpoints already; the count and the endpoint are written together. */
export async function create(table: Table, webhook: Webhook): Promise<boolean> {
  const written = await conditional(
    transactWrite(table, [
      {
        Put: {
          TableName: table.name,
          Item: { ...keys.webhook(webhook.webhook_id), ...keys.webhookByApp(webhook.app_id, webhook.created_at, webhook.webhook_id), ...webhook },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Update: {
          TableName: table.name,
          Key: keys.webhookCount(webhook.app_id),
          UpdateExpression: 'ADD #count :one',
          ConditionExpression: 'attribute_not_exists(#count) OR #count < :max',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':one': 1, ':max': maxWebhooksPerApp },
        },
      },
    ]),
  );
  if (written.held) return true;
  // Only the count's condition failing means the app is full; any other reason is thrown.
  if (written.reasons[1] === 'ConditionalCheckFailed') return false;
  throw written.error;
}

export async function get(table: Table, webhookId: string): Promise<Webhook | undefined> {
  const item = await getItem(table, keys.webhook(webhookId));
  return item ? parseWebhook(item) : undefined;
}

/** An app has at most 10: one query reads them all, oldest first. */
export async function listByApp(table: Table, appId: string): Promise<Webhook[]> {
  return (await queryIndexPartition(table, keys.webhooksOfApp(appId))).map(parseWebhook);
}

/**
 * Undefined when the endpoint is gone. Enabling clears the record of
 * failures, so a re-enabled endpoint starts with a clean slate.
 */
export async function update(table: Table, webhookId: string, fields: Partial<Pick<Webhook, 'url' | 'events' | 'description' | 'enabled' | 'secret_ciphertext'>>): Promise<Webhook | undefined> {
  const set = assignments(fields);
  const clear = fields.enabled === true ? ' REMOVE failing_since, failed_deliveries, disabled_reason' : '';
  const written = await conditional(
    updateItem(table, keys.webhook(webhookId), {
      UpdateExpression: `SET ${set.text}${clear}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: set.names,
      ExpressionAttributeValues: set.values,
      ReturnValues: 'ALL_NEW',
    }),
  );
  return written.held ? parseWebhook(written.answer.Attributes!) : undefined;
}

/** False when there was no such endpoint; its deliveries stay until their TTL. */
export async function remove(table: Table, webhook: Webhook): Promise<boolean> {
  const written = await conditional(
    transactWrite(table, [
      { Delete: { TableName: table.name, Key: keys.webhook(webhook.webhook_id), ConditionExpression: 'attribute_exists(pk)' } },
      {
        Update: {
          TableName: table.name,
          Key: keys.webhookCount(webhook.app_id),
          UpdateExpression: 'ADD #count :minusOne',
          ConditionExpression: '#count > :zero',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
        },
      },
    ]),
  );
  if (written.held) return true;
  // Only the endpoint's condition failing means there was none; any other reason is thrown.
  if (written.reasons[0] === 'ConditionalCheckFailed') return false;
  throw written.error;
}

/** Writes the delivery unless it exists: a fan-out done again (a redelivered event) leaves the first one's log as it is. */
export async function putDelivery(table: Table, delivery: Delivery, ttl: number): Promise<void> {
  const ref = deliveryIds.parse(delivery.delivery_id)!;
  await conditional(putItem(table, { ...deliveryKey(ref), ...delivery, ttl }, { condition: condition(conditions.isNew), unstamped: true }));
}

export async function getDelivery(table: Table, ref: DeliveryRef): Promise<Delivery | undefined> {
  const item = await getItem(table, deliveryKey(ref), { consistentRead: true });
  return item ? deliverySchema.parse(item) : undefined;
}

/** Newest first, of one state if given; `after` is the position the last page ended on. */
export async function listDeliveries(table: Table, webhookId: string, options: { state?: DeliveryState; limit: number; after?: string }): Promise<{ deliveries: Delivery[]; next?: string }> {
  const { found, next } = await boundedList(table, {
    query: {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.webhook(webhookId).pk, ':prefix': keys.deliveryPrefix, ...(options.state ? { ':state': options.state } : {}) },
      ...(options.state ? { FilterExpression: '#state = :state', ExpressionAttributeNames: { '#state': 'state' } } : {}),
      ScanIndexForward: false,
    },
    ...(options.after ? { startKey: { ...deliveryKey({ webhookId, position: options.after }) } } : {}),
    limit: options.limit,
    // An endpoint's log is bounded by its TTL, not by a read bound.
    readBound: Infinity,
    pageSize: (wanted) => (options.state ? 200 : wanted),
    keep: (items) => items.map((item) => deliverySchema.parse(item)),
  });
  return { deliveries: found, ...(next && found.length > 0 ? { next: deliveryIds.parse(found.at(-1)!.delivery_id)!.position } : {}) };
}

/**
 * Takes attempt `attempt` of a delivery for one worker until `leaseUntil`:
 * only when the attempts before it are settled and no live lease holds it.
 * A second copy of the same queue message finds it busy (and comes back
 * later) or stale (it was done): an attempt is counted once. A
 * redelivery (`reopen`) may take a delivered or failed delivery too.
 */
export async function claimAttempt(table: Table, ref: DeliveryRef, attempt: number, now: number, leaseUntil: number, reopen: boolean): Promise<Claim> {
  const written = await conditional(
    updateItem(
      table,
      deliveryKey(ref),
      {
        UpdateExpression: 'SET attempts = :attempt, lease_until = :lease, #state = :pending',
        ConditionExpression: `attribute_exists(pk) AND settled = :settled AND (attempts = :settled OR lease_until < :now)${reopen ? '' : ' AND #state = :pending'}`,
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':attempt': attempt, ':settled': attempt - 1, ':lease': leaseUntil, ':now': now, ':pending': 'pending' },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
      { unstamped: true },
    ),
  );
  if (written.held) return { kind: 'claimed', delivery: deliverySchema.parse(written.answer.Attributes) };
  if (!written.item) return { kind: 'stale' };
  const delivery = deliverySchema.parse(written.item);
  const waiting = delivery.state === 'pending' && (delivery.settled < attempt - 1 || (delivery.settled === attempt - 1 && (delivery.lease_until ?? 0) >= now));
  return waiting ? { kind: 'busy' } : { kind: 'stale', delivery };
}

/**
 * Records attempt `attempt`'s outcome, once: conditional on the attempt
 * still being the one begun and unsettled. With a change of the endpoint
 * (failures counted, cleared, or the endpoint disabled) both are written
 * in one transaction whose token is the attempt's, so a worker that
 * retries the write applies it once. False when the outcome was recorded already.
 */
export async function recordAttempt(table: Table, ref: DeliveryRef, attempt: number, outcome: AttemptOutcome, endpoint: EndpointChange): Promise<boolean> {
  const update = {
    UpdateExpression: 'SET settled = :attempt, #state = :state, last_status = :status, last_error = :error, next_attempt_at = :next REMOVE lease_until',
    ConditionExpression: 'attempts = :attempt AND settled = :before',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: {
      ':attempt': attempt,
      ':before': attempt - 1,
      ':state': outcome.state,
      ':status': outcome.status,
      ':error': outcome.error,
      ':next': outcome.nextAttemptAt,
    },
  };
  const written = await conditional<unknown>(
    endpoint.kind === 'none'
      ? updateItem(table, deliveryKey(ref), update, { unstamped: true })
      : transactWrite({ ...table, requestId: `${deliveryIds.of(ref)}#${attempt}` }, [
          { Update: { TableName: table.name, Key: deliveryKey(ref), ...update } },
          { Update: endpointUpdate(table, ref.webhookId, endpoint) },
        ]),
  );
  if (written.held) return true;
  // Only the attempt's own condition failing means its outcome was recorded already; any other reason is thrown.
  if (written.reasons[0] === 'ConditionalCheckFailed') return false;
  throw written.error;
}

function endpointUpdate(table: Table, webhookId: string, change: Exclude<EndpointChange, { kind: 'none' }>) {
  const base = { TableName: table.name, Key: keys.webhook(webhookId), ConditionExpression: 'attribute_exists(pk)' };
  if (change.kind === 'recovered') {
    return stampUpdate(table, { ...base, UpdateExpression: 'REMOVE failing_since, failed_deliveries' });
  }
  const disable = change.disable ? ', enabled = :false, disabled_reason = :reason' : '';
  return stampUpdate(table, {
    ...base,
    UpdateExpression: `SET failing_since = if_not_exists(failing_since, :since)${disable}${change.deliveryFailed ? ' ADD failed_deliveries :one' : ''}`,
    ExpressionAttributeValues: {
      ':since': change.since,
      ...(change.disable ? { ':false': false, ':reason': change.disable } : {}),
      ...(change.deliveryFailed ? { ':one': 1 } : {}),
    },
  });
}
