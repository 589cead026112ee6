import type { License } from '#data/license.repo';
import type { Deps } from '../deps';
import type { Subscription } from '#data/subscription.repo';

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
 * answers about a license with several seats: a one-seat license answers byte
 * for byte as docs/client-api.md#license-data shows it, so clients that know only
 * that shape (the Keycrate SDKs) see no difference; its one device is `hwid`.
 */
function seats(license: License): { hwids?: string[]; max_devices?: number } {
  return license.max_devices > 1 ? { hwids: license.hwids, max_devices: license.max_devices } : {};
}

/** Subscription name and level as a license shows them; a deleted subscription shows as null. */
function tier(subscription: Subscription | undefined) {
  return { subscription_name: subscription?.name ?? null, subscription_level: subscription?.level ?? null };
}

/** The license record of management responses (docs/management-api.md, Licenses); never a password hash. */
export function managementView(license: License, subscription: Subscription | undefined) {
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
    tags: license.tags,
    metadata: license.metadata,
    ...seats(license),
  };
}

export type LicenseRecord = ReturnType<typeof managementView>;

/** The record a management answer shows, as the license stands now, with its subscription's name and level. */
export async function licenseRecord(deps: Pick<Deps, 'repos'>, license: License): Promise<LicenseRecord> {
  return managementView(license, await deps.repos.subscriptions.get(license.subscription_id));
}

/** The 13 fields of docs/client-api.md, "POST /auth", for a successful /auth (the license as it stands after this login). */
export function authView(license: License, subscription: Subscription, now: Date) {
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
  };
}
