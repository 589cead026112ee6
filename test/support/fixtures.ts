import type { Deps } from '#core/deps';
import { newId, newLicenseKey } from '#core/ids';
import type { License } from '#data/model/license';
import type { Subscription } from '#data/model/subscription';
import type { Owner } from './owners';
import * as licenses from '#data/license.repo';
import * as subscriptions from '#data/subscription.repo';

/** A subscription of the owner's app, written straight through the repository. */
export async function seedSubscription(deps: Deps, owner: Owner, overrides: Partial<Subscription> = {}): Promise<Subscription> {
  const subscription: Subscription = {
    subscription_id: newId(),
    app_id: owner.app_id,
    team_id: owner.team_id,
    name: 'Pro',
    level: 1,
    single_key_per_hwid: false,
    status: 'active',
    created_at: new Date().toISOString(),
    ...overrides,
  };
  await subscriptions.create(deps.table, subscription);
  return subscription;
}

/** An unused, active, unlocked 30-day license of that subscription unless overridden; not stored. */
export function licenseRecord(subscription: Subscription, overrides: Partial<License> = {}): License {
  return {
    key: newLicenseKey(),
    app_id: subscription.app_id,
    team_id: subscription.team_id,
    subscription_id: subscription.subscription_id,
    status: 'active',
    created_at: new Date().toISOString(),
    expires_at: null,
    initial_duration: 30 * 86400,
    first_used_at: null,
    last_login: null,
    hwid: null,
    hwid_lock: false,
    hwid_reset_allowed: true,
    hwid_reset_interval: 0,
    last_hwid_reset_at: null,
    username: null,
    tags: [],
    metadata: {},
    max_devices: 1,
    lease_seconds: null,
    leases: {},
    ...overrides,
    hwids: overrides.hwids ?? (overrides.hwid ? [overrides.hwid] : []),
  };
}

/** `licenseRecord`, written straight through the repository. */
export async function seedLicense(deps: Deps, subscription: Subscription, overrides: Partial<License> = {}): Promise<License> {
  const license = licenseRecord(subscription, overrides);
  if (!(await licenses.create(deps.table, license))) throw new Error(`license ${license.key} exists`);
  return license;
}
