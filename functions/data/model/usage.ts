import type { StoredCounter } from '#shared/entitlements';
import { usagePeriods, type UsagePeriod } from '#shared/usage-periods';

/**
 * Usage counters live on the license item, one attribute per counter: /usage
 * reads the license anyway, so the counter comes with it, and counting is one
 * conditional update of that item. Top-level attributes (not one map) because
 * a nested path cannot be set while its parent map is missing.
 */
const prefix = 'usage#';

export const counterAttribute = (counter: string): string => `${prefix}${counter}`;

export const isCounterAttribute = (attribute: string): boolean => attribute.startsWith(prefix);

/** The counter a stored attribute holds, by name; attributes of another shape are no counter. */
export function countersOf(item: Record<string, unknown>): Record<string, StoredCounter> {
  const counters: Record<string, StoredCounter> = {};
  for (const [attribute, value] of Object.entries(item)) {
    if (!isCounterAttribute(attribute) || typeof value !== 'object' || value === null) continue;
    const { period_start: periodStart, period, used, limit_reached_at: limitReachedAt } = value as Record<string, unknown>;
    if (typeof periodStart !== 'string' || typeof used !== 'number') continue;
    counters[attribute.slice(prefix.length)] = {
      period_start: periodStart,
      ...(usagePeriods.includes(period as UsagePeriod) ? { period: period as UsagePeriod } : {}),
      used,
      ...(typeof limitReachedAt === 'string' ? { limit_reached_at: limitReachedAt } : {}),
    };
  }
  return counters;
}

/** How long a `usage_id` is remembered (docs/client-api.md, POST /usage). */
export const usageIdSeconds = 86_400;
