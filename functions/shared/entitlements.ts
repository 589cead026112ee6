import * as z from 'zod/mini';
import { addSeconds } from './clock';
import { ownEntry } from './own-keys';
import { periodEnd, periodStart, usagePeriods, type UsagePeriod } from './usage-periods';

/**
 * Entitlements, usage limits and grace (docs/licensing-models.md): the body
 * fields owners send, and how a license's own values combine with its
 * subscription's.
 */
export const entitlementLimits = {
  features: 50,
  counters: 20,
  /** Limits and overages above this are typos; it keeps `limit + overage` an exact integer. */
  maxCount: 1_000_000_000_000,
  maxGraceSeconds: 30 * 86400,
} as const;

const namePattern = /^[a-z0-9][a-z0-9._:-]{0,63}$/;
const nameRule = 'must be 1 to 64 characters of a-z, 0-9, ., _, : and -, starting with a letter or digit';

/** A feature or counter name. */
export const entitlementName = z.string().check(z.regex(namePattern, nameRule));

/** Up to 50 features; stored sorted, a repeated one once. */
export const featuresField = z.lazy(() =>
  z.pipe(
    z.array(entitlementName).check(z.maxLength(entitlementLimits.features, `must hold at most ${entitlementLimits.features} features`)),
    z.transform((features: string[]) => [...new Set(features)].sort()),
  ),
);

const count = z.lazy(() => z.int().check(z.minimum(0), z.maximum(entitlementLimits.maxCount)));

export const usageLimitField = z.lazy(() =>
  z.strictObject({
    limit: count,
    period: z.enum(usagePeriods),
    overage: z._default(count, 0),
  }),
);
export type UsageLimit = z.infer<typeof usageLimitField>;
export type UsageLimits = Record<string, UsageLimit>;

/** Up to 20 counters by name (`constructor` and `prototype` are names like any other). */
export const usageLimitsField = z.lazy(() =>
  z.record(entitlementName, usageLimitField).check(
    z.refine((limits) => Object.keys(limits).length <= entitlementLimits.counters, `must hold at most ${entitlementLimits.counters} counters`),
  ),
);

export const graceSecondsField = z.lazy(() => z.int().check(z.minimum(0), z.maximum(entitlementLimits.maxGraceSeconds)));

interface Entitled {
  features?: string[];
  usage_limits?: UsageLimits;
}

/** The sorted union of the subscription's features and the license's own. */
export function effectiveFeatures(subscription: Entitled | undefined, license: Entitled): string[] {
  return [...new Set([...(subscription?.features ?? []), ...(license.features ?? [])])].sort();
}

/** Every counter that applies to the license: the subscription's, with the license's own of the same name in their place. */
export function effectiveUsageLimits(subscription: Entitled | undefined, license: Entitled): UsageLimits {
  return { ...subscription?.usage_limits, ...license.usage_limits };
}

/** What a license stores of one counter: the period it counts in and how much was counted there. */
export interface StoredCounter {
  period_start: string;
  /**
   * The kind of period counted in: a day, a week, a month and a year can all start
   * at one moment (a Monday the 1st of January), where the start alone would not
   * tell a counter of another kind from the current one. Absent on counters
   * stored before it was: their start alone decides.
   */
  period?: UsagePeriod;
  used: number;
  /** Set by the first refusal in the period: that refusal is announced, later ones are not. */
  limit_reached_at?: string;
}

/** Whether the stored counter counts in the current period of `limit`: same start, and the same kind of period. */
export function countsNow(limit: UsageLimit, stored: StoredCounter | undefined, now: Date): stored is StoredCounter {
  return stored !== undefined && stored.period_start === periodStart(limit.period, now) && (stored.period ?? limit.period) === limit.period;
}

/** Usage counted so far in the current period: a counter stored for an earlier period (or a different kind of period) counts as 0. */
export function usedNow(limit: UsageLimit, stored: StoredCounter | undefined, now: Date): number {
  return countsNow(limit, stored, now) ? stored.used : 0;
}

/** A counter as answers show it (docs/client-api.md, POST /usage). */
export interface CounterView {
  counter: string;
  used: number;
  limit: number;
  overage: number;
  remaining: number;
  period: UsagePeriod;
  resets_at: string | null;
}

export function counterView(name: string, limit: UsageLimit, used: number, now: Date): CounterView {
  return {
    counter: name,
    used,
    limit: limit.limit,
    overage: limit.overage,
    remaining: Math.max(0, limit.limit + limit.overage - used),
    period: limit.period,
    resets_at: periodEnd(limit.period, now),
  };
}

/** Every counter that applies to the license, by name, as it stands now. */
export function usageView(limits: UsageLimits, counters: Record<string, StoredCounter>, now: Date): CounterView[] {
  return Object.keys(limits)
    .sort()
    .map((name) => counterView(name, limits[name]!, usedNow(limits[name]!, ownEntry(counters, name), now), now));
}

/** The end of a grace period: null when the license has no expiry yet or its subscription gives no grace. */
export function graceUntil(expiresAt: string | null, graceSeconds: number | undefined): string | null {
  if (expiresAt === null || !graceSeconds) return null;
  return addSeconds(expiresAt, graceSeconds);
}
