import { createHash } from 'node:crypto';
import { GetCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { countsNow, type CounterView, type StoredCounter, type UsageLimit } from '#shared/entitlements';
import { ownEntry } from '#shared/own-keys';
import { periodStart } from '#shared/usage-periods';
import { stampUpdate, transactWrite, type Table } from './db';
import { keys } from './keys';
import { parseLicense, type License } from './license.repo';
import { cancellationCodes, isConditionFailure } from './retry';
import { counterAttribute } from './usage-counters';

/** How long a `usage_id` is remembered (docs/client-api.md, POST /usage). */
export const usageIdSeconds = 86_400;

/**
 * Each count leaves a mark of the request's token in one of this many slots of its
 * counter, chosen by the token: when the SDK sends a count again after its
 * answer was lost, the count finds its own mark and knows it was applied.
 * Another count overwrites that slot only if its mark falls in the same slot
 * within the moment between the lost answer and the resend.
 */
const tokenSlots = 16;

export interface CountRequest {
  /** The license as read: its counter decides between adding in the period and starting a new one. */
  license: License;
  counter: string;
  limit: UsageLimit;
  amount: number;
  now: Date;
  /** Unique per request (API Gateway's request id): how a resent count recognises itself. */
  token: string;
}

export type CountOutcome =
  | { kind: 'counted'; used: number }
  /** The counter or the license changed since it was read: decide again on this reading (undefined: the license is gone). */
  | { kind: 'changed'; license: License | undefined };

export type CountOnceOutcome =
  | { kind: 'counted' }
  /** The `usage_id` counted before: its first answer. */
  | { kind: 'replayed'; answer: CounterView }
  | { kind: 'changed' };

/**
 * Where a count leaves its mark, and the mark: 12 characters of the token's
 * hash, so the marks of a counter's 16 slots stay about 250 bytes of the
 * license item, which every /auth writes.
 */
function markOf(token: string): { slot: string; mark: string } {
  const digest = createHash('sha256').update(token).digest();
  return { slot: `t${digest[0]! % tokenSlots}`, mark: digest.subarray(1, 10).toString('base64url') };
}

/**
 * How a write on a counter starts from what was read: adding to the current
 * period's count, or replacing a counter of an earlier period, of another kind
 * of period (or none) by a new one. Either is conditional on the period as read,
 * its kind included, so of two requests starting a new period one does and the
 * other adds to it.
 */
function counterWrite(request: Pick<CountRequest, 'license' | 'counter' | 'limit' | 'now'>) {
  const start = periodStart(request.limit.period, request.now);
  const stored = ownEntry(request.license.counters, request.counter);
  const current = countsNow(request.limit, stored, request.now) ? stored : undefined;
  const names: Record<string, string> = { '#u': counterAttribute(request.counter), '#status': 'status' };
  const values: Record<string, unknown> = { ':active': 'active' };
  const conditions = ['#status = :active'];
  if (stored) {
    names['#period'] = 'period';
    conditions.push('#u.period_start = :readStart', stored.period === undefined ? 'attribute_not_exists(#u.#period)' : '#u.#period = :readPeriod');
    values[':readStart'] = stored.period_start;
    if (stored.period !== undefined) values[':readPeriod'] = stored.period;
  } else conditions.push('attribute_exists(pk) AND attribute_not_exists(#u)');
  const fresh = (fields: Omit<StoredCounter, 'period_start' | 'period'>) => ({ period_start: start, period: request.limit.period, ...fields });
  return { start, current, names, values, conditions, fresh };
}

export function createUsageRepo(table: Table) {
  const send = (update: Omit<UpdateCommandInput, 'TableName'>) => table.doc.send(new UpdateCommand(stampUpdate(table, { TableName: table.name, ...update })));

  /** The answer a `usage_id` of the license earned within the last 24 hours, if it counted. */
  const earlierAnswer = async (license: License, usageId: string, now: Date): Promise<CounterView | undefined> => {
    const key = keys.usageMarker(keys.licenseOf(license), usageId);
    const { Item } = await table.doc.send(new GetCommand({ TableName: table.name, Key: key, ConsistentRead: true }));
    if (!Item || typeof Item.ttl !== 'number' || Item.ttl <= Math.floor(now.getTime() / 1000)) return undefined;
    // A stored map comes back in no particular order: the answer is given again field for field as first sent.
    const { counter, used, limit, overage, remaining, period, resets_at: resetsAt } = Item.answer as CounterView;
    return { counter, used, limit, overage, remaining, period, resets_at: resetsAt };
  };

  return {
    earlierAnswer,

    /**
     * Adds `amount` to the counter in one conditional update of the license
     * item, refused by DynamoDB when it would pass `limit + overage`: of
     * concurrent counts, the sum counted never passes it. The caller has
     * checked the limit on the counter as read.
     */
    async count(request: CountRequest): Promise<CountOutcome> {
      const { start, current, names, values, conditions, fresh } = counterWrite(request);
      const { slot, mark } = markOf(request.token);
      const room = request.limit.limit + request.limit.overage - request.amount;
      let update: string;
      if (current) {
        update = 'SET #u.used = #u.used + :amount, #u.#slot = :token';
        names['#slot'] = slot;
        values[':token'] = mark;
        conditions.push('#u.used <= :room', '(attribute_not_exists(#u.#slot) OR #u.#slot <> :token)');
        values[':amount'] = request.amount;
        values[':room'] = room;
      } else {
        update = 'SET #u = :fresh';
        values[':fresh'] = fresh({ used: request.amount, [slot]: mark });
      }
      const key = keys.licenseOf(request.license);
      try {
        const { Attributes } = await send({
          Key: key,
          UpdateExpression: update,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        });
        return { kind: 'counted', used: (Attributes![counterAttribute(request.counter)] as StoredCounter).used };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const raw = (error as { Item?: Parameters<typeof unmarshall>[0] }).Item;
        if (!raw) return { kind: 'changed', license: undefined };
        const old = unmarshall(raw);
        // This very count, applied once already: its answer was lost and the SDK sent it again.
        const stored = old[counterAttribute(request.counter)] as Record<string, unknown> | undefined;
        if (stored && stored.period_start === start && stored[slot] === mark) return { kind: 'counted', used: stored.used as number };
        return { kind: 'changed', license: parseLicense(old) };
      }
    },

    /**
     * A count under a `usage_id`: the marker holding the answer and the
     * counter's new value are written in one transaction, so the id counts
     * exactly once; the counter must still hold the value read, which makes
     * the stored answer exact. A marker older than 24 hours that TTL has not
     * removed yet counts as none.
     */
    async countOnce(request: Omit<CountRequest, 'token'> & { usageId: string; answer: CounterView }): Promise<CountOnceOutcome> {
      const { current, names, values, conditions, fresh } = counterWrite(request);
      let update: string;
      if (current) {
        update = 'SET #u.used = :used';
        conditions.push('#u.used = :readUsed');
        values[':used'] = current.used + request.amount;
        values[':readUsed'] = current.used;
      } else {
        update = 'SET #u = :fresh';
        values[':fresh'] = fresh({ used: request.amount });
      }
      const licenseKey = keys.licenseOf(request.license);
      const markerKey = keys.usageMarker(licenseKey, request.usageId);
      const nowSeconds = Math.floor(request.now.getTime() / 1000);
      try {
        await transactWrite(
          table,
          [
            {
              Put: {
                TableName: table.name,
                Item: { ...markerKey, counter: request.counter, answer: request.answer, ttl: nowSeconds + usageIdSeconds },
                ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :now',
                ExpressionAttributeNames: { '#ttl': 'ttl' },
                ExpressionAttributeValues: { ':now': nowSeconds },
              },
            },
            {
              Update: {
                TableName: table.name,
                Key: licenseKey,
                UpdateExpression: update,
                ConditionExpression: conditions.join(' AND '),
                ExpressionAttributeNames: names,
                ExpressionAttributeValues: values,
              },
            },
          ],
          { retryCancellations: false },
        );
        return { kind: 'counted' };
      } catch (error) {
        const codes = cancellationCodes(error);
        if (!codes) throw error;
        const answer = codes[0] === 'ConditionalCheckFailed' ? await earlierAnswer(request.license, request.usageId, request.now) : undefined;
        return answer ? { kind: 'replayed', answer } : { kind: 'changed' };
      }
    },

    /**
     * Marks the counter's period as refused once, so the stream announces the
     * first refusal of a period and no later one. A condition that fails means
     * another request marked it or the counter moved on: nothing to do.
     */
    async markLimitReached(request: Pick<CountRequest, 'license' | 'counter' | 'limit' | 'now'>): Promise<void> {
      const { current, names, values, conditions, fresh } = counterWrite(request);
      if (current?.limit_reached_at !== undefined) return;
      const at = request.now.toISOString();
      let update: string;
      if (current) {
        update = 'SET #u.limit_reached_at = :at';
        conditions.push('attribute_not_exists(#u.limit_reached_at)');
        values[':at'] = at;
      } else {
        update = 'SET #u = :fresh';
        values[':fresh'] = fresh({ used: 0, limit_reached_at: at });
      }
      try {
        await send({
          Key: keys.licenseOf(request.license),
          UpdateExpression: update,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        });
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    },

    /**
     * Sets counters of a license of this team to 0 by removing them (a new
     * count starts a fresh one). Removing is the same whether sent once or
     * again. Undefined when the license is not the team's; otherwise the
     * license as stored afterwards.
     */
    async reset(license: License, counters: string[]): Promise<License | undefined> {
      if (counters.length === 0) return license;
      const names = Object.fromEntries(counters.map((counter, index) => [`#u${index}`, counterAttribute(counter)]));
      try {
        const { Attributes } = await send({
          Key: keys.licenseOf(license),
          UpdateExpression: `REMOVE ${Object.keys(names).join(', ')}`,
          ConditionExpression: 'team_id = :team',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':team': license.team_id },
          ReturnValues: 'ALL_NEW',
        });
        return parseLicense(Attributes!);
      } catch (error) {
        if (isConditionFailure(error)) return undefined;
        throw error;
      }
    },
  };
}
