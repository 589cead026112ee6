import type { License } from '#data/model/license';
import type { Deps } from '../deps';
import type { Subscription } from '#data/model/subscription';
import { effectiveFeatures, effectiveUsageLimits, graceUntil, usageView } from '#shared/entitlements';
import { isFloating, isLive, leaseOfDevice, liveLeases } from '#data/model/lease';
import { liveFiles } from '#data/model/license-file';
import * as subscriptions from '#data/subscription.repo';

/** Seconds until the next HWID reset is allowed: 0 when none happened or the interval has passed. */
export function hwidResetCooldown(license: License, now: Date): number {
  if (!license.last_hwid_reset_at) return 0;
  const next = Date.parse(license.last_hwid_reset_at) + license.hwid_reset_interval * 1000;
  return Math.max(0, Math.ceil((next - now.getTime()) / 1000));
}

/** A reset is available now when the owner allows resets and the cooldown has run out. */
export function hwidResetAvailable(license: License, now: Date): boolean {
  return license.hwid_reset_allowed && hwidResetCooldown(license, now) === 0;
}

/**
 * `hwids` and `max_devices` (docs/management-api.md, "Devices: seats and self-service reset"), appended only to the
 * answers about a license with several seats or floating ones: a one-seat license answers byte
 * for byte as docs/client-api.md#license-data shows it, so clients that know only
 * that shape (the Keycrate SDKs) see no difference; its one device is `hwid`.
 */
function seats(license: License): { hwids?: string[]; max_devices?: number } {
  return license.max_devices > 1 || isFloating(license) ? { hwids: license.hwids, max_devices: license.max_devices } : {};
}

/**
 * A floating license as its answers show it (docs/licensing-models.md, "Floating seats"): only
 * devices with a live lease are bound; a listed device whose lease ended is
 * not, though it stays in the item until the next seat taken drops it.
 */
function asBoundNow(license: License, now: Date): License {
  if (!isFloating(license)) return license;
  const hwids = liveLeases(license, now).map((lease) => lease.hwid);
  return { ...license, hwids, hwid: hwids[0] ?? null };
}

/** The record's leasing fields, present once `lease_seconds` was set: `floating` false says leasing has no effect while `hwid_lock` is off. */
function leasing(license: License, now: Date) {
  if (license.lease_seconds === null) return {};
  return { lease_seconds: license.lease_seconds, floating: isFloating(license), leases: liveLeases(license, now) };
}

/** Subscription name and level as a license shows them; a deleted subscription shows as null. */
function tier(subscription: Subscription | undefined) {
  return { subscription_name: subscription?.name ?? null, subscription_level: subscription?.level ?? null };
}

/** The license record of management responses (docs/management-api.md, Licenses); never a password hash. */
export function managementView(stored: License, subscription: Subscription | undefined, now: Date) {
  const license = asBoundNow(stored, now);
  return {
    key: license.key,
    app_id: license.app_id,
    subscription_id: license.subscription_id,
    ...tier(subscription),
    status: license.status,
    created_at: license.created_at,
    expires_at: license.expires_at,
    initial_duration: license.initial_duration,
    first_used_at: license.first_used_at,
    last_login: license.last_login,
    hwid: license.hwid,
    hwid_lock: license.hwid_lock,
    hwid_reset_allowed: license.hwid_reset_allowed,
    hwid_reset_interval: license.hwid_reset_interval,
    last_hwid_reset_at: license.last_hwid_reset_at,
    username: license.username,
    ...(license.email === undefined ? {} : { email: license.email }),
    tags: license.tags,
    metadata: license.metadata,
    ...seats(license),
    ...leasing(license, now),
    ...(stored.files === undefined ? {} : { files: liveFiles(stored, now) }),
    ...entitlements(license, subscription, now),
  };
}

/**
 * A license's entitlements as the record shows them (docs/licensing-models.md):
 * its own features and usage limits, what applies with its subscription's,
 * and its usage in the current periods.
 */
function entitlements(license: License, subscription: Subscription | undefined, now: Date) {
  return {
    features: license.features ?? [],
    effective_features: effectiveFeatures(subscription, license),
    usage_limits: license.usage_limits ?? {},
    usage: usageView(effectiveUsageLimits(subscription, license), license.counters ?? {}, now),
  };
}

export type LicenseRecord = ReturnType<typeof managementView>;

/**
 * A license as its customer sees it in the portal (docs/portal.md#what-customers-see): what it
 * grants and its devices, each with its lease (floating seats) and live license files, and when
 * the customer may release a device (the license's reset rules). None of the owner's own fields
 * (tags, metadata, username, the reset rules themselves).
 */
export function customerView(stored: License, subscription: Subscription | undefined, now: Date) {
  const license = asBoundNow(stored, now);
  const files = stored.files === undefined ? [] : liveFiles(stored, now);
  const floating = isFloating(stored);
  const cooldown = hwidResetCooldown(license, now);
  return {
    key: license.key,
    status: license.status,
    expires_at: license.expires_at,
    subscription_name: subscription?.name ?? null,
    features: effectiveFeatures(subscription, license),
    usage: usageView(effectiveUsageLimits(subscription, license), license.counters ?? {}, now),
    max_devices: license.max_devices,
    devices: license.hwids.map((hwid) => {
      const lease = floating ? leaseOfDevice(stored, hwid) : undefined;
      return {
        hwid,
        lease: lease === undefined ? null : { expires_at: lease.expires_at, borrowed: lease.borrowed },
        files: files.filter((file) => file.hwid === hwid).map((file) => ({ issued_at: file.issued_at, expires_at: file.expires_at, air_gapped: file.air_gapped })),
      };
    }),
    release: {
      allowed_now: hwidResetAvailable(license, now),
      next_at: license.hwid_reset_allowed ? new Date(now.getTime() + cooldown * 1000).toISOString() : null,
    },
  };
}

export type CustomerLicense = ReturnType<typeof customerView>;

/** The record a management answer shows, as the license stands now, with its subscription's name and level. */
export async function licenseRecord(deps: Pick<Deps, 'table' | 'clock'>, license: License): Promise<LicenseRecord> {
  return managementView(license, await subscriptions.get(deps.table, license.subscription_id), deps.clock.now());
}

/**
 * The 13 fields of docs/client-api.md, "POST /auth", for a successful /auth (the license as it stands after this login);
 * a floating license adds `lease_expires_at`, the end of `hwid`'s lease (null when it holds none).
 */
export function authView(stored: License, subscription: Subscription, now: Date, hwid?: string) {
  const license = asBoundNow(stored, now);
  const lease = hwid === undefined ? undefined : leaseOfDevice(stored, hwid);
  return {
    key: license.key,
    created_at: license.created_at,
    expires_at: license.expires_at,
    initial_duration: String(license.initial_duration),
    first_used_at: license.first_used_at,
    hwid_lock: license.hwid_lock,
    last_hwid_reset_at: license.last_hwid_reset_at,
    hwid_reset_cooldown: hwidResetCooldown(license, now),
    hwid_reset_allowed: hwidResetAvailable(license, now),
    username: license.username,
    last_login: license.last_login,
    subscription_level: subscription.level,
    subscription_name: subscription.name,
    ...seats(license),
    ...(isFloating(license) ? { lease_expires_at: isLive(lease, now) ? lease.expires_at : null } : {}),
    ...clientEntitlements(license, subscription, now),
  };
}

/**
 * Appended only when they apply, so a license without features or grace
 * answers exactly as before: the features of the license and its
 * subscription, and the end of the grace period it is in.
 */
function clientEntitlements(license: License, subscription: Subscription, now: Date): { features?: string[]; grace_until?: string } {
  const features = effectiveFeatures(subscription, license);
  const until = graceUntil(license.expires_at, subscription.grace_seconds);
  const inGrace = until !== null && now.getTime() >= Date.parse(license.expires_at!);
  return { ...(features.length > 0 ? { features } : {}), ...(inGrace ? { grace_until: until } : {}) };
}
