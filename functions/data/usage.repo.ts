import { createHash } from 'node:crypto';
import { countsNow, type CounterView, type StoredCounter, type UsageLimit } from '#shared/entitlements';
import { ownEntry } from '#shared/own-keys';
import { periodStart } from '#shared/usage-periods';
import { conditional, getItem, transactWrite, updateItem, type Table } from './db';
import { condition, part, Update } from './expressions';
import { keys } from './keys';
import { parseLicense, type License } from './model/license';
import { counterAttribute, usageIdSeconds } from './model/usage';

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

/** A part of a write on one counter: its attribute is `#u` in every part. */
const onCounter = (counter: string, text: string, values: Record<string, unknown> = {}, names: Record<string, string> = {}) =>
  part(text, values, { '#u': counterAttribute(counter), ...names });

/** What a count holds the license and its counter to, by what each condition means. */
const counterIs = {
  ofActiveLicense: part('#status = :active', { ':active': 'active' }, { '#status': 'status' }),
  inPeriodRead: (counter: string, start: string) => onCounter(counter, '#u.period_start = :readStart', { ':readStart': start }),
  /** The kind of period as read: a counter stored before kinds were recorded has none. */
  ofPeriodKindRead: (counter: string, period: StoredCounter['period']) =>
    period === undefined
      ? onCounter(counter, 'attribute_not_exists(#u.#period)', {}, { '#period': 'period' })
      : onCounter(counter, '#u.#period = :readPeriod', { ':readPeriod': period }, { '#period': 'period' }),
  absent: (counter: string) => onCounter(counter, 'attribute_exists(pk) AND attribute_not_exists(#u)'),
  /** The count still fits: `used + amount <= limit + overage`. */
  roomFor: (counter: string, room: number) => onCounter(counter, '#u.used <= :room', { ':room': room }),
  /** This count's mark is not in its slot yet: a count resent after it was applied finds its own mark and fails here. */
  unmarkedBy: (counter: string, slot: string, mark: string) =>
    onCounter(counter, '(attribute_not_exists(#u.#slot) OR #u.#slot <> :token)', { ':token': mark }, { '#slot': slot }),
  usedAsRead: (counter: string, used: number) => onCounter(counter, '#u.used = :readUsed', { ':readUsed': used }),
  notRefusedYet: (counter: string) => onCounter(counter, 'attribute_not_exists(#u.limit_reached_at)'),
};

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
  const write = new Update().when(counterIs.ofActiveLicense);
  if (stored) write.when(counterIs.inPeriodRead(request.counter, stored.period_start), counterIs.ofPeriodKindRead(request.counter, stored.period));
  else write.when(counterIs.absent(request.counter));
  /** A counter of this period made anew, with what the write puts in it. */
  const fresh = (fields: Omit<StoredCounter, 'period_start' | 'period'>) =>
    onCounter(request.counter, '#u = :fresh', { ':fresh': { period_start: start, period: request.limit.period, ...fields } });
  return { start, current, write, fresh };
}

/** The answer a `usage_id` of the license earned within the last 24 hours, if it counted. */
export async function earlierAnswer(table: Table, license: License, usageId: string, now: Date): Promise<CounterView | undefined> {
  const key = keys.usageMarker(keys.licenseOf(license), usageId);
  const marker = await getItem(table, key, { consistentRead: true });
  if (!marker || typeof marker.ttl !== 'number' || marker.ttl <= Math.floor(now.getTime() / 1000)) return undefined;
  // A stored map comes back in no particular order: the answer is given again field for field as first sent.
  const { counter, used, limit, overage, remaining, period, resets_at: resetsAt } = marker.answer as CounterView;
  return { counter, used, limit, overage, remaining, period, resets_at: resetsAt };
}

/**
 * Adds `amount` to the counter in one conditional update of the license
 * item, refused by DynamoDB when it would pass `limit + overage`: of
 * concurrent counts, the sum counted never passes it. The caller has
 * checked the limit on the counter as read.
 */
export async function count(table: Table, request: CountRequest): Promise<CountOutcome> {
  const { start, current, write, fresh } = counterWrite(request);
  const { slot, mark } = markOf(request.token);
  const room = request.limit.limit + request.limit.overage - request.amount;
  if (current) {
    write
      .set(onCounter(request.counter, '#u.used = #u.used + :amount', { ':amount': request.amount }), onCounter(request.counter, '#u.#slot = :token', { ':token': mark }, { '#slot': slot }))
      .when(counterIs.roomFor(request.counter, room), counterIs.unmarkedBy(request.counter, slot, mark));
  } else write.set(fresh({ used: request.amount, [slot]: mark }));
  const written = await conditional(
    updateItem(table, keys.licenseOf(request.license), { ...write.input(), ReturnValues: 'UPDATED_NEW', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
  );
  if (written.held) return { kind: 'counted', used: (written.answer.Attributes![counterAttribute(request.counter)] as StoredCounter).used };
  const old = written.item;
  if (!old) return { kind: 'changed', license: undefined };
  // This very count, applied once already: its answer was lost and the SDK sent it again.
  const stored = old[counterAttribute(request.counter)] as Record<string, unknown> | undefined;
  if (stored && stored.period_start === start && stored[slot] === mark) return { kind: 'counted', used: stored.used as number };
  return { kind: 'changed', license: parseLicense(old) };
}

/**
 * A count under a `usage_id`: the marker holding the answer and the
 * counter's new value are written in one transaction, so the id counts
 * exactly once; the counter must still hold the value read, which makes
 * the stored answer exact. A marker older than 24 hours that TTL has not
 * removed yet counts as none.
 */
export async function countOnce(table: Table, request: Omit<CountRequest, 'token'> & { usageId: string; answer: CounterView }): Promise<CountOnceOutcome> {
  const { current, write, fresh } = counterWrite(request);
  if (current) write.set(onCounter(request.counter, '#u.used = :used', { ':used': current.used + request.amount })).when(counterIs.usedAsRead(request.counter, current.used));
  else write.set(fresh({ used: request.amount }));
  const licenseKey = keys.licenseOf(request.license);
  const markerKey = keys.usageMarker(licenseKey, request.usageId);
  const nowSeconds = Math.floor(request.now.getTime() / 1000);
  const marker = { ...markerKey, counter: request.counter, answer: request.answer, ttl: nowSeconds + usageIdSeconds };
  const markerFree = part('attribute_not_exists(pk) OR #ttl <= :now', { ':now': nowSeconds }, { '#ttl': 'ttl' });
  const written = await conditional(
    transactWrite(
      table,
      [
        { Put: { TableName: table.name, Item: marker, ...condition(markerFree) } },
        { Update: { TableName: table.name, Key: licenseKey, ...write.input() } },
      ],
      { retryCancellations: false },
    ),
    'cancellation',
  );
  if (written.held) return { kind: 'counted' };
  const answer = written.reasons[0] === 'ConditionalCheckFailed' ? await earlierAnswer(table, request.license, request.usageId, request.now) : undefined;
  return answer ? { kind: 'replayed', answer } : { kind: 'changed' };
}

/**
 * Marks the counter's period as refused once, so the stream announces the
 * first refusal of a period and no later one. A condition that fails means
 * another request marked it or the counter moved on: nothing to do.
 */
export async function markLimitReached(table: Table, request: Pick<CountRequest, 'license' | 'counter' | 'limit' | 'now'>): Promise<void> {
  const { current, write, fresh } = counterWrite(request);
  if (current?.limit_reached_at !== undefined) return;
  const at = request.now.toISOString();
  if (current) write.set(onCounter(request.counter, '#u.limit_reached_at = :at', { ':at': at })).when(counterIs.notRefusedYet(request.counter));
  else write.set(fresh({ used: 0, limit_reached_at: at }));
  await conditional(updateItem(table, keys.licenseOf(request.license), write.input()));
}

/**
 * Sets counters of a license of this team to 0 by removing them (a new
 * count starts a fresh one). Removing is the same whether sent once or
 * again. Undefined when the license is not the team's; otherwise the
 * license as stored afterwards.
 */
export async function reset(table: Table, license: License, counters: string[]): Promise<License | undefined> {
  if (counters.length === 0) return license;
  const write = new Update()
    .remove(...counters.map((counter, index) => part(`#u${index}`, {}, { [`#u${index}`]: counterAttribute(counter) })))
    .when(part('team_id = :team', { ':team': license.team_id }));
  const written = await conditional(updateItem(table, keys.licenseOf(license), { ...write.input(), ReturnValues: 'ALL_NEW' }));
  return written.held ? parseLicense(written.answer.Attributes!) : undefined;
}
