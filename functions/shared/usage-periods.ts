/**
 * The calendar periods of usage counters (docs/licensing-models.md, "Metered
 * usage"): UTC days, weeks from Monday 00:00 UTC, months and years, or one
 * period that never ends. A counter stores the start of the period it counts
 * in; a stored start other than the current one means a new period has begun,
 * which starts at 0 without any scheduled job.
 */
export const usagePeriods = ['day', 'week', 'month', 'year', 'none'] as const;
export type UsagePeriod = (typeof usagePeriods)[number];

/** What a counter of period `none` stores as its start: it has one period, forever. */
export const foreverPeriod = 'none';

const dayMs = 86_400_000;

/** The start of the period `now` falls in, as an ISO time (`none` for the one endless period). */
export function periodStart(period: UsagePeriod, now: Date): string {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  const day = Date.UTC(year, month, now.getUTCDate());
  switch (period) {
    case 'day':
      return new Date(day).toISOString();
    case 'week':
      // getUTCDay: Sunday is 0; a week starts on Monday.
      return new Date(day - ((now.getUTCDay() + 6) % 7) * dayMs).toISOString();
    case 'month':
      return new Date(Date.UTC(year, month, 1)).toISOString();
    case 'year':
      return new Date(Date.UTC(year, 0, 1)).toISOString();
    case 'none':
      return foreverPeriod;
  }
}

/** The end of the period `now` falls in (the next one's start), or null for `none`. */
export function periodEnd(period: UsagePeriod, now: Date): string | null {
  if (period === 'none') return null;
  const start = new Date(periodStart(period, now));
  const year = start.getUTCFullYear();
  const month = start.getUTCMonth();
  switch (period) {
    case 'day':
      return new Date(start.getTime() + dayMs).toISOString();
    case 'week':
      return new Date(start.getTime() + 7 * dayMs).toISOString();
    case 'month':
      return new Date(Date.UTC(year, month + 1, 1)).toISOString();
    case 'year':
      return new Date(Date.UTC(year + 1, 0, 1)).toISOString();
  }
}
