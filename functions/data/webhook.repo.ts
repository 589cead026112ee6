import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { getItem, queryIndexPartition, stampUpdate, transactWrite, type Table } from './db';
import { assignments } from './expressions';
import { keys } from './keys';
import { cancellationCodes, isConditionFailure } from './retry';
import { deliveryIds, deliverySchema, maxWebhooksPerApp, webhookSchema, type AttemptOutcome, type Claim, type Delivery, type DeliveryRef, type DeliveryState, type EndpointChange, type Webhook } from './model/webhook';

const parseWebhook = (item: Record<string, unknown>): Webhook => webhookSchema.parse(item);

export function createWebhookRepo(table: Table) {
  const deliveryKey = (ref: DeliveryRef) => keys.delivery(ref.webhookId, ref.position);

  return {
    /** False when the app has its maximum of endpoints already; the count and the endpoint are written together. */
    async create(webhook: Webhook): Promise<boolean> {
      try {
        await transactWrite(table, [
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
        ]);
        return true;
      } catch (error) {
        if (cancellationCodes(error)?.[1] === 'ConditionalCheckFailed') return false;
        throw error;
      }
    },

    async get(webhookId: string): Promise<Webhook | undefined> {
      const item = await getItem(table, keys.webhook(webhookId));
      return item ? parseWebhook(item) : undefined;
    },

    /** An app has at most 10: one query reads them all, oldest first. */
    async listByApp(appId: string): Promise<Webhook[]> {
      return (await queryIndexPartition(table, keys.webhooksOfApp(appId))).map(parseWebhook);
    },

    /**
     * Undefined when the endpoint is gone. Enabling clears the record of
     * failures, so a re-enabled endpoint starts with a clean slate.
     */
    async update(webhookId: string, fields: Partial<Pick<Webhook, 'url' | 'events' | 'description' | 'enabled' | 'secret_ciphertext'>>): Promise<Webhook | undefined> {
      const set = assignments(fields);
      const clear = fields.enabled === true ? ' REMOVE failing_since, failed_deliveries, disabled_reason' : '';
      try {
        const { Attributes } = await table.doc.send(
          new UpdateCommand(
            stampUpdate(table, {
              TableName: table.name,
              Key: keys.webhook(webhookId),
              UpdateExpression: `SET ${set.text}${clear}`,
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeNames: set.names,
              ExpressionAttributeValues: set.values,
              ReturnValues: 'ALL_NEW',
            }),
          ),
        );
        return parseWebhook(Attributes!);
      } catch (error) {
        if (isConditionFailure(error)) return undefined;
        throw error;
      }
    },

    /** False when there was no such endpoint; its deliveries stay until their TTL. */
    async delete(webhook: Webhook): Promise<boolean> {
      try {
        await transactWrite(table, [
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
        ]);
        return true;
      } catch (error) {
        if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') return false;
        throw error;
      }
    },

    /** Writes the delivery unless it exists: a fan-out done again (a redelivered event) leaves the first one's log as it is. */
    async putDelivery(delivery: Delivery, ttl: number): Promise<void> {
      const ref = deliveryIds.parse(delivery.delivery_id)!;
      try {
        await table.doc.send(
          new PutCommand({ TableName: table.name, Item: { ...deliveryKey(ref), ...delivery, ttl }, ConditionExpression: 'attribute_not_exists(pk)' }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    },

    async getDelivery(ref: DeliveryRef): Promise<Delivery | undefined> {
      const { Item } = await table.doc.send(new GetCommand({ TableName: table.name, Key: deliveryKey(ref), ConsistentRead: true }));
      return Item ? deliverySchema.parse(Item) : undefined;
    },

    /** Newest first, of one state if given; `after` is the position the last page ended on. */
    async listDeliveries(webhookId: string, options: { state?: DeliveryState; limit: number; after?: string }): Promise<{ deliveries: Delivery[]; next?: string }> {
      const found: Delivery[] = [];
      let startKey: Record<string, unknown> | undefined = options.after ? { ...deliveryKey({ webhookId, position: options.after }) } : undefined;
      do {
        const page = await table.doc.send(
          new QueryCommand({
            TableName: table.name,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
            ExpressionAttributeValues: { ':pk': keys.webhook(webhookId).pk, ':prefix': keys.deliveryPrefix, ...(options.state ? { ':state': options.state } : {}) },
            ...(options.state ? { FilterExpression: '#state = :state', ExpressionAttributeNames: { '#state': 'state' } } : {}),
            ScanIndexForward: false,
            Limit: options.state ? 200 : options.limit + 1 - found.length,
            ExclusiveStartKey: startKey,
          }),
        );
        found.push(...(page.Items ?? []).map((item) => deliverySchema.parse(item)));
        startKey = page.LastEvaluatedKey;
      } while (startKey && found.length <= options.limit);
      const deliveries = found.slice(0, options.limit);
      const more = found.length > options.limit || (startKey !== undefined && found.length === options.limit);
      return { deliveries, ...(more && deliveries.length > 0 ? { next: deliveryIds.parse(deliveries.at(-1)!.delivery_id)!.position } : {}) };
    },

    /**
     * Takes attempt `attempt` of a delivery for one worker until `leaseUntil`:
     * only when the attempts before it are settled and no live lease holds it.
     * A second copy of the same queue message finds it busy (and comes back
     * later) or stale (it was done): an attempt is counted once. A
     * redelivery (`reopen`) may take a delivered or failed delivery too.
     */
    async claimAttempt(ref: DeliveryRef, attempt: number, now: number, leaseUntil: number, reopen: boolean): Promise<Claim> {
      try {
        const { Attributes } = await table.doc.send(
          new UpdateCommand({
            TableName: table.name,
            Key: deliveryKey(ref),
            UpdateExpression: 'SET attempts = :attempt, lease_until = :lease, #state = :pending',
            ConditionExpression: `attribute_exists(pk) AND settled = :settled AND (attempts = :settled OR lease_until < :now)${reopen ? '' : ' AND #state = :pending'}`,
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':attempt': attempt, ':settled': attempt - 1, ':lease': leaseUntil, ':now': now, ':pending': 'pending' },
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { kind: 'claimed', delivery: deliverySchema.parse(Attributes) };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        // The old item a failed condition returns comes marshalled, even through the document client.
        const old = (error as { Item?: Parameters<typeof unmarshall>[0] }).Item;
        if (!old) return { kind: 'stale' };
        const delivery = deliverySchema.parse(unmarshall(old));
        const waiting = delivery.state === 'pending' && (delivery.settled < attempt - 1 || (delivery.settled === attempt - 1 && (delivery.lease_until ?? 0) >= now));
        return waiting ? { kind: 'busy' } : { kind: 'stale', delivery };
      }
    },

    /**
     * Records attempt `attempt`'s outcome, once: conditional on the attempt
     * still being the one begun and unsettled. With a change of the endpoint
     * (failures counted, cleared, or the endpoint disabled) both are written
     * in one transaction whose token is the attempt's, so a worker that
     * retries the write applies it once. False when the outcome was recorded already.
     */
    async recordAttempt(ref: DeliveryRef, attempt: number, outcome: AttemptOutcome, endpoint: EndpointChange): Promise<boolean> {
      const update = {
        TableName: table.name,
        Key: deliveryKey(ref),
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
      try {
        if (endpoint.kind === 'none') await table.doc.send(new UpdateCommand(update));
        else await transactWrite({ ...table, requestId: `${deliveryIds.of(ref)}#${attempt}` }, [{ Update: update }, { Update: endpointUpdate(table, ref.webhookId, endpoint) }]);
        return true;
      } catch (error) {
        if (isConditionFailure(error) || cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') return false;
        throw error;
      }
    },
  };
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
