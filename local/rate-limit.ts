/**
 * Token buckets per owner, as API Gateway's usage plan throttles each API key:
 * `ratePerSecond` steady, `burst` at once. Buckets idle long enough to be full are
 * dropped, so memory follows the number of active owners.
 */
export interface RateLimit {
  ratePerSecond: number;
  burst: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export type Verdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = () => Date.now(),
  ) {}

  take(owner: string): Verdict {
    const now = this.now();
    const bucket = this.buckets.get(owner) ?? { tokens: this.limit.burst, updatedAt: now };
    bucket.tokens = Math.min(this.limit.burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.limit.ratePerSecond);
    bucket.updatedAt = now;
    this.buckets.set(owner, bucket);
    this.forgetFullBuckets(now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.limit.ratePerSecond)) };
  }

  private forgetFullBuckets(now: number) {
    if (this.buckets.size < 1000) return;
    const refillMs = (this.limit.burst / this.limit.ratePerSecond) * 1000;
    for (const [owner, bucket] of this.buckets) {
      if (now - bucket.updatedAt > refillMs) this.buckets.delete(owner);
    }
  }
}
