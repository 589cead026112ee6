import * as z from 'zod/mini';

/** The counters of /app/stats the events consumer keeps: per day, the app's totals, and expiry counts (keys.statsTotals, keys.expiryCount). */
export type DayCounter = 'created' | 'activated' | 'logins' | 'auth_failures';

/** One addition to a counter of a counter item (daily counters, the totals of /app/stats, expiry counts). */
export interface Addition {
  /** The counter item's key. */
  key: { pk: string; sk: string };
  counter: string;
  amount: number;
}

export type DayCounts = Record<DayCounter, number>;

/** Where a license stands in the totals of /app/stats; `expiresAt` only while it is not paused. */
export interface Standing {
  appId: string;
  paused: boolean;
  unused: boolean;
  expiresAt?: string;
}

/** A license item's standing; undefined for an item that is no license of an app. */
export function standingOf(item: Record<string, unknown> | undefined): Standing | undefined {
  if (!item || typeof item.app_id !== 'string') return undefined;
  const paused = item.status === 'paused';
  return { appId: item.app_id, paused, unused: item.first_used_at == null, ...(!paused && typeof item.expires_at === 'string' ? { expiresAt: item.expires_at } : {}) };
}

export interface Totals {
  licenses: number;
  active: number;
  paused: number;
  expired: number;
  unused: number;
}

export const totalsSchema = z.lazy(() => z.object({ licenses: z.optional(z.number()), paused: z.optional(z.number()), unused: z.optional(z.number()) }));
export const expiryCountSchema = z.lazy(() => z.object({ sk: z.string(), count: z.optional(z.number()) }));

export const dayCountsSchema = z.lazy(() =>
  z.object({
    created: z.optional(z.number()),
    activated: z.optional(z.number()),
    logins: z.optional(z.number()),
    auth_failures: z.optional(z.number()),
  }),
);
