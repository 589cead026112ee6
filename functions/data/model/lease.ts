import * as z from 'zod/mini';
import { ownEntry } from '#shared/own-keys';

/**
 * Floating seats (docs/licensing-models.md, "Floating seats"). A floating
 * license keeps its seats where /auth already writes, on the license item:
 * `hwids` lists the devices holding or having held a seat in the order they
 * took it, and `leases` maps each of them to its lease. A lease whose end has
 * passed holds no seat; the next seat taken drops it from both in the same
 * conditional write.
 */
export interface Lease {
  /** ISO time; the seat is held while now is before it. */
  expires_at: string;
  /** Taken offline with `borrow_seconds`: the client cannot release it before its end. */
  borrowed: boolean;
}

/**
 * A lease as the item stores it: its end in epoch milliseconds, negated when
 * borrowed. One number instead of a map of an ISO time and a flag saves about
 * 40 bytes a seat on the license item, which every heartbeat writes whole and
 * DynamoDB bills per started KB: a license of a few leased seats stays within
 * the write unit of a license without them.
 */
export const storedLeaseSchema = z.lazy(() => z.number());

export function storedLease(lease: Lease): number {
  const end = Date.parse(lease.expires_at);
  return lease.borrowed ? -end : end;
}

export function leaseOf(stored: number): Lease {
  return { expires_at: new Date(Math.abs(stored)).toISOString(), borrowed: stored < 0 };
}

export function storedLeases(leases: Record<string, Lease>): Record<string, number> {
  return Object.fromEntries(Object.entries(leases).map(([hwid, lease]) => [hwid, storedLease(lease)]));
}

export function leasesOf(stored: Record<string, number>): Record<string, Lease> {
  return Object.fromEntries(Object.entries(stored).map(([hwid, lease]) => [hwid, leaseOf(lease)]));
}

/**
 * The one HWID refused by name, on every route that takes one: leases are keyed
 * by HWID, and `__proto__` is the key the document client can neither store nor
 * read back (docs/security.md#keys-chosen-by-clients-and-owners). Refused on a
 * license that does not float too, as it may float later.
 */
export const refusedHwid = '__proto__';

/** `lease_seconds` of a license: null (seats are bound for good) or 60 s to 30 days. */
export const leaseSecondsLimits = { min: 60, max: 30 * 86400 } as const;

/** `borrow_seconds` of /auth: from 60 s to the application's `max_borrow_seconds` (default 7 days, at most 365 days). */
export const borrowSecondsLimits = { min: 60, defaultMax: 7 * 86400, max: 365 * 86400 } as const;

/** What the lease rules read of a license. */
export interface LeaseHolder {
  hwid_lock: boolean;
  hwids: string[];
  lease_seconds: number | null;
  leases: Record<string, Lease>;
}

/** Leasing applies only with `hwid_lock` on: a seat is counted by HWID. */
export function isFloating(license: Pick<LeaseHolder, 'hwid_lock' | 'lease_seconds'>): boolean {
  return license.hwid_lock && license.lease_seconds !== null;
}

/** The device's lease, if it has one: `leases` is keyed by HWIDs, which may be named like what every object inherits (`constructor`, `toString`). */
export function leaseOfDevice(license: Pick<LeaseHolder, 'leases'>, hwid: string): Lease | undefined {
  return ownEntry(license.leases, hwid);
}

export function isLive(lease: Lease | undefined, now: Date): lease is Lease {
  return lease !== undefined && Date.parse(lease.expires_at) > now.getTime();
}

export interface LiveLease extends Lease {
  hwid: string;
}

/** The leases holding a seat now, oldest first (the order their devices took them). */
export function liveLeases(license: Pick<LeaseHolder, 'hwids' | 'leases'>, now: Date): LiveLease[] {
  return license.hwids.flatMap((hwid) => {
    const lease = leaseOfDevice(license, hwid);
    return isLive(lease, now) ? [{ hwid, ...lease }] : [];
  });
}

/** The earliest end among live leases: when a seat frees up at the latest, unless released earlier. */
export function nextSeatAt(live: readonly LiveLease[]): string | null {
  if (live.length === 0) return null;
  return live.reduce((earliest, lease) => (Date.parse(lease.expires_at) < Date.parse(earliest) ? lease.expires_at : earliest), live[0]!.expires_at);
}

/** What /auth writes on a floating license, decided from the license as read (client/seats.ts). */
export interface SeatWrite {
  /** The device (always the HWID the request sent). */
  hwid: string;
  /** Its lease after this /auth. */
  lease: Lease;
  /** Its live lease as read: this /auth renews it (the heartbeat); absent: it takes a seat. */
  held?: Lease;
  /** Listed HWIDs whose leases have ended (as read), dropped by the same write that takes a seat. */
  dropped: { hwid: string; lease: Lease | undefined }[];
}
