import { counterView, effectiveFeatures, effectiveUsageLimits, graceUntil, usedNow, usageView } from '#shared/entitlements';
import { periodEnd, periodStart, type UsagePeriod } from '#shared/usage-periods';
import { createFakeClock } from '../support/clock';

const at = (time: string) => new Date(time);

describe('usage periods are UTC calendar periods', () => {
  it.each<[UsagePeriod, string, string, string | null]>([
    ['day', '2026-03-04T23:59:59.999Z', '2026-03-04T00:00:00.000Z', '2026-03-05T00:00:00.000Z'],
    ['day', '2026-03-05T00:00:00.000Z', '2026-03-05T00:00:00.000Z', '2026-03-06T00:00:00.000Z'],
    // 2026-03-01 is a Sunday: its week began on Monday 2026-02-23.
    ['week', '2026-03-01T23:00:00.000Z', '2026-02-23T00:00:00.000Z', '2026-03-02T00:00:00.000Z'],
    ['week', '2026-03-02T00:00:00.000Z', '2026-03-02T00:00:00.000Z', '2026-03-09T00:00:00.000Z'],
    ['week', '2026-12-31T12:00:00.000Z', '2026-12-28T00:00:00.000Z', '2027-01-04T00:00:00.000Z'],
    ['month', '2026-01-31T18:00:00.000Z', '2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z'],
    ['month', '2026-02-28T23:59:59.000Z', '2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z'],
    ['month', '2028-02-29T12:00:00.000Z', '2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z'],
    ['month', '2026-12-15T00:00:00.000Z', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['year', '2028-12-31T23:59:59.999Z', '2028-01-01T00:00:00.000Z', '2029-01-01T00:00:00.000Z'],
    ['year', '2027-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z', '2028-01-01T00:00:00.000Z'],
    ['none', '2026-03-04T10:00:00.000Z', 'none', null],
  ])('%s at %s starts at %s and ends at %s', (period, now, start, end) => {
    expect(periodStart(period, at(now))).toBe(start);
    expect(periodEnd(period, at(now))).toBe(end);
  });

  it('reads a time given in another offset in UTC: Monday 00:30 in Berlin is still Sunday in UTC', () => {
    expect(periodStart('week', new Date('2026-03-02T00:30:00+01:00'))).toBe('2026-02-23T00:00:00.000Z');
  });
});

describe('a counter across a roll-over, on a clock moved by hand', () => {
  const limits = { exports: { limit: 10, period: 'day' as const, overage: 2 } };

  it.each<[UsagePeriod, string, number]>([
    ['day', '2026-03-04T23:59:00.000Z', 60],
    ['week', '2026-03-08T23:59:00.000Z', 60],
    ['month', '2028-02-29T23:59:00.000Z', 60],
    ['month', '2026-04-30T23:59:00.000Z', 60],
    ['year', '2028-12-31T23:59:00.000Z', 60],
  ])('a %s counter stored at %s counts as 0 once the next period starts', (period, start, seconds) => {
    const clock = createFakeClock(at(start));
    const limit = { limit: 10, period, overage: 0 };
    const stored = { period_start: periodStart(period, clock.now()), used: 7 };
    expect(usedNow(limit, stored, clock.now())).toBe(7);
    clock.advance(seconds - 1);
    expect(usedNow(limit, stored, clock.now())).toBe(7);
    clock.advance(1);
    expect(usedNow(limit, stored, clock.now())).toBe(0);
  });

  it('never rolls a counter of period none over', () => {
    const stored = { period_start: 'none', used: 3 };
    expect(usedNow({ limit: 5, period: 'none', overage: 0 }, stored, at('2099-01-01T00:00:00.000Z'))).toBe(3);
  });

  it('starts again at 0 when the owner changes the kind of period', () => {
    const now = at('2026-03-04T10:00:00.000Z');
    const stored = { period_start: periodStart('day', now), used: 4 };
    expect(usedNow({ limit: 5, period: 'month', overage: 0 }, stored, now)).toBe(0);
  });

  // Days, weeks, months and years begin together on some dates: the kind of period tells the counters apart there.
  it.each<[UsagePeriod, UsagePeriod, string]>([
    ['day', 'week', '2026-03-02T10:00:00.000Z'],
    ['week', 'day', '2026-03-02T10:00:00.000Z'],
    ['day', 'month', '2026-04-01T10:00:00.000Z'],
    ['week', 'month', '2026-06-01T10:00:00.000Z'],
    ['month', 'year', '2027-01-20T10:00:00.000Z'],
    ['day', 'year', '2029-01-01T10:00:00.000Z'],
  ])('starts again at 0 when a %s counter becomes a %s counter at %s, though both periods began at the same moment', (from, to, time) => {
    const now = at(time);
    expect(periodStart(from, now)).toBe(periodStart(to, now));
    const stored = { period_start: periodStart(from, now), period: from, used: 4 };
    expect(usedNow({ limit: 5, period: from, overage: 0 }, stored, now)).toBe(4);
    expect(usedNow({ limit: 5, period: to, overage: 0 }, stored, now)).toBe(0);
  });

  it('keeps counting a counter stored without its kind of period (before it was stored) while its period runs', () => {
    const now = at('2026-03-04T10:00:00.000Z');
    expect(usedNow({ limit: 5, period: 'day', overage: 0 }, { period_start: periodStart('day', now), used: 4 }, now)).toBe(4);
  });

  it('shows remaining as limit plus overage minus used, never below 0', () => {
    const now = at('2026-03-04T10:00:00.000Z');
    expect(counterView('exports', limits.exports, 11, now)).toEqual({
      counter: 'exports', used: 11, limit: 10, overage: 2, remaining: 1, period: 'day', resets_at: '2026-03-05T00:00:00.000Z',
    });
    expect(counterView('exports', { ...limits.exports, limit: 3 }, 9, now).remaining).toBe(0);
  });

  it('lists every counter that applies, by name, with 0 for one never counted', () => {
    const now = at('2026-03-04T10:00:00.000Z');
    const view = usageView({ b: limits.exports, a: { limit: 1, period: 'none', overage: 0 } }, { b: { period_start: periodStart('day', now), used: 5 } }, now);
    expect(view.map(({ counter, used }) => [counter, used])).toEqual([['a', 0], ['b', 5]]);
  });
});

describe('entitlements of a license and its subscription', () => {
  it('unites features sorted, and lets a license counter replace the subscription counter of the same name', () => {
    expect(effectiveFeatures({ features: ['sync', 'export'] }, { features: ['beta', 'sync'] })).toEqual(['beta', 'export', 'sync']);
    expect(effectiveFeatures(undefined, {})).toEqual([]);
    const tier = { usage_limits: { exports: { limit: 10, period: 'day' as const, overage: 0 }, seats: { limit: 2, period: 'none' as const, overage: 0 } } };
    const own = { usage_limits: { exports: { limit: 99, period: 'month' as const, overage: 1 } } };
    expect(effectiveUsageLimits(tier, own)).toEqual({ exports: own.usage_limits.exports, seats: tier.usage_limits.seats });
  });

  it('ends grace that many seconds after the expiry, and gives none without grace or expiry', () => {
    expect(graceUntil('2026-03-04T10:00:00.000Z', 3600)).toBe('2026-03-04T11:00:00.000Z');
    expect(graceUntil('2026-03-04T10:00:00.000Z', 0)).toBeNull();
    expect(graceUntil(null, 3600)).toBeNull();
  });
});
