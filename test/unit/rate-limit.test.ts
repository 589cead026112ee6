import { RateLimiter } from '../../local/rate-limit';

describe('the local per-owner rate limiter', () => {
  it('allows a burst, then refuses with the seconds until a token is back', () => {
    let now = 0;
    const limiter = new RateLimiter({ ratePerSecond: 2, burst: 3 }, () => now);
    expect([1, 2, 3].map(() => limiter.take('team').allowed)).toEqual([true, true, true]);
    expect(limiter.take('team')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now = 500;
    expect(limiter.take('team').allowed).toBe(true);
    expect(limiter.take('team').allowed).toBe(false);
  });

  it('keeps owners apart', () => {
    const limiter = new RateLimiter({ ratePerSecond: 1, burst: 1 }, () => 0);
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
    expect(limiter.take('b').allowed).toBe(true);
  });

  it('never refills past the burst', () => {
    let now = 0;
    const limiter = new RateLimiter({ ratePerSecond: 10, burst: 2 }, () => now);
    now = 60_000;
    expect([1, 2, 3].map(() => limiter.take('team').allowed)).toEqual([true, true, false]);
  });
});
