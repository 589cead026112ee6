import { bestRound, scaleBudgets, type ScaleResult } from '../../bench/scale';
import type { LoadResult } from '../../bench/load';

const round = (p50_ms: number, requests = 100): LoadResult => ({ p50_ms, p99_ms: p50_ms * 2, rps: requests / 8, requests, non_2xx: 0, errors: 0 });

describe("the scale benchmark's figures", () => {
  it('compares each size by its round of the lowest p50', () => {
    expect(bestRound([round(7), round(4), round(5)]).p50_ms).toBe(4);
  });

  it('never takes a round in which nothing answered (autocannon reports its latencies as 0)', () => {
    expect(bestRound([round(0, 0), round(9)]).p50_ms).toBe(9);
    expect(bestRound([round(0, 0), round(0, 0)]).requests).toBe(0);
  });

  const figure = (read_units: number | null, p50_ms: number | null = 5, failed = 0) => ({ p50_ms, p99_ms: p50_ms, rps: 100, failed, read_units, write_units: 0 });
  const scaleOf = (small: ReturnType<typeof figure>, large: ReturnType<typeof figure>): ScaleResult => ({
    licenses_small: 1000,
    licenses_large: 200000,
    small: { licenses: 1000, figures: { auth: small, get_bulk: small, license_find: small, app_stats: small } },
    large: { licenses: 200000, figures: { auth: large, get_bulk: large, license_find: large, app_stats: large } },
    ratios: Object.fromEntries(
      ['auth', 'get_bulk', 'license_find', 'app_stats'].map((operation) => [operation, { p50_ms: large.p50_ms === null || small.p50_ms === null ? null : large.p50_ms / small.p50_ms }]),
    ) as unknown as ScaleResult['ratios'],
    seed_seconds: 1,
    total_seconds: 2,
  });
  const passes = (scale: ScaleResult) => scaleBudgets(scale).map((check) => check.pass);

  it('fails a size that reads more units, fails a request, or never answers', () => {
    expect(passes(scaleOf(figure(2), figure(2)))).not.toContain(false);
    expect(passes(scaleOf(figure(2), figure(2.5)))).toContain(false);
    expect(passes(scaleOf(figure(2), figure(2, 5, 1)))).toContain(false);
    expect(passes(scaleOf(figure(2), figure(null, null)))).toContain(false);
  });

  it('fails a p50 more than 1.5 times its value at the small size', () => {
    expect(passes(scaleOf(figure(2, 4), figure(2, 6)))).not.toContain(false);
    expect(passes(scaleOf(figure(2, 4), figure(2, 7)))).toContain(false);
  });
});
