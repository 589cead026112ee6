import * as z from 'zod/mini';
import { usageLimitField, type StoredCounter } from '#shared/entitlements';
import { leasesOf, storedLeases, storedLeaseSchema, type Lease } from './lease';
import { filesOf, storedFile, storedFileSchema, type LicenseFileEntry } from './license-file';
import { countersOf } from './usage';

/** Every field of a license as stored; management answers with all of them, /auth with its 13. */
export const licenseSchema = z.lazy(() =>
  z.object({
    key: z.string(),
    app_id: z.string(),
    /** Owner of the app, kept on the license so an ownership check needs no second read. */
    team_id: z.string(),
    subscription_id: z.string(),
    status: z.enum(['active', 'paused']),
    created_at: z.string(),
    /** null until first use: the clock starts at activation. */
    expires_at: z.nullable(z.string()),
    /** Seconds. */
    initial_duration: z.int().check(z.nonnegative()),
    first_used_at: z.nullable(z.string()),
    last_login: z.nullable(z.string()),
    hwid: z.nullable(z.string()),
    hwid_lock: z.boolean(),
    hwid_reset_allowed: z.boolean(),
    /** Seconds between two HWID resets. */
    hwid_reset_interval: z.int().check(z.nonnegative()),
    last_hwid_reset_at: z.nullable(z.string()),
    username: z.nullable(z.string()),
    tags: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()),
    /** Set when the key was the owner's own choice: the item lives under the team (keys.license). */
    key_scope: z.optional(z.literal('team')),
    /** Every bound HWID, oldest first; `hwid` is its first. Items written before seats existed have `hwid` only. */
    hwids: z.optional(z.array(z.string())),
    /** Seats: how many HWIDs may be bound at once. Absent on items written before seats existed: 1. */
    max_devices: z.optional(z.int().check(z.minimum(1))),
    /** Floating seats (lease.ts): seconds a seat is lent per /auth; absent or null: seats are bound for good. */
    lease_seconds: z.optional(z.nullable(z.int().check(z.positive()))),
    /** Each listed HWID's lease, by HWID; present whenever `lease_seconds` is set. */
    leases: z.optional(z.record(z.string(), storedLeaseSchema)),
    /** The license's own features, beside its subscription's. Absent on items written before entitlements existed: none. */
    features: z.optional(z.array(z.string())),
    /** The license's own usage limits, overriding its subscription's of the same name. */
    usage_limits: z.optional(z.record(z.string(), usageLimitField)),
    /** License files (license-file.ts): each device's latest, by `jti`; absent until the license's first file. */
    files: z.optional(z.record(z.string(), storedFileSchema)),
    /** The customer's email address, lower-cased (fields.ts emailField); absent while the license has none. */
    email: z.optional(z.string()),
  }),
);
export type License = Omit<z.infer<typeof licenseSchema>, 'hwids' | 'max_devices' | 'lease_seconds' | 'leases' | 'files'> & {
  hwids: string[];
  max_devices: number;
  lease_seconds: number | null;
  leases: Record<string, Lease>;
  /** License files by `jti`, present once the item has a `files` map (a file's write adds to the map when it exists, else writes it whole). */
  files?: Record<string, LicenseFileEntry>;
  /** Usage counted so far, by counter (model/usage.ts): read from the item, never written with it. */
  counters?: Record<string, StoredCounter>;
};

/** Seats a license may have (docs/management-api.md, "Devices: seats and self-service reset"). */
export const maxDevicesLimit = 100;

/** A license's attributes as its item stores them, its keys aside (items.ts puts them under keys.licenseOf and keys.licenseByApp). */
export function storedLicense(license: License): Record<string, unknown> {
  // A license that never floated is stored as before leases existed; a floating one always has its `leases` map, which lease updates write into.
  const { lease_seconds, leases, files, counters: _counters, ...rest } = license;
  return {
    ...rest,
    ...(files === undefined ? {} : { files: Object.fromEntries(Object.entries(files).map(([jti, file]) => [jti, storedFile(file)])) }),
    ...(lease_seconds === null && Object.keys(leases).length === 0 ? {} : { lease_seconds, leases: storedLeases(leases) }),
  };
}

export function parseLicense(item: Record<string, unknown>): License {
  const { files, ...parsed } = licenseSchema.parse(item);
  const counters = countersOf(item);
  return {
    ...parsed,
    hwids: parsed.hwids ?? (parsed.hwid === null ? [] : [parsed.hwid]),
    max_devices: parsed.max_devices ?? 1,
    lease_seconds: parsed.lease_seconds ?? null,
    leases: leasesOf(parsed.leases ?? {}),
    ...(files === undefined ? {} : { files: filesOf(files) }),
    ...(Object.keys(counters).length > 0 ? { counters } : {}),
  };
}

export type LicenseFlag = 'hwid_lock' | 'hwid_reset_allowed';

export type HwidSettings = Pick<License, 'hwid_lock' | 'hwid_reset_allowed' | 'hwid_reset_interval'>;

/** What management routes set on a license in a single conditional update. */
export type LicenseSettings = HwidSettings & Pick<License, 'status' | 'subscription_id' | 'metadata' | 'features' | 'usage_limits'>;

/** A license's expiry as read and as it should become, with the idempotency marker (its item's key) of a bulk request. */
export interface ExpiryChange {
  before: License;
  after: Pick<License, 'expires_at' | 'initial_duration'>;
  marker?: { id: { pk: string; sk: string }; ttl: number };
}

/** Where a listing stands: right after this license in creation order. */
export type ListPosition = Pick<License, 'created_at' | 'key' | 'key_scope'>;

/** Where a listing by expiry stands: right after this license in expiry order. */
export type ExpiryPosition = Pick<License, 'key' | 'key_scope'> & { expires_at: string };

export type ListOrder = 'created_at' | 'expires_at';
export type PositionIn<O extends ListOrder> = O extends 'expires_at' ? ExpiryPosition : ListPosition;

export interface ListFilter {
  status?: License['status'];
  subscription_id?: string;
  tag?: string;
}
