import { iso } from '#shared/clock';
import type { Deps } from '#core/deps';
import { newLicenseKey } from '#core/ids';
import type { License } from '#data/model/license';
import type { Subscription } from '#data/model/subscription';
import type { UsageLimits } from '#shared/entitlements';
import { durationUnitSeconds } from './schemas';

/** Self-service resets of a license whose request and application both leave them unset: allowed, no cooldown (as every license had before owners could choose). */
export const hwidResetDefaults = { hwid_reset_allowed: true, hwid_reset_interval: 0 } as const;

export interface NewLicenseInput {
  teamId: string;
  subscription: Subscription;
  hwid_reset_allowed: boolean;
  hwid_reset_interval: number;
  duration_unit: keyof typeof durationUnitSeconds;
  duration_value: number;
  hwid_lock: boolean;
  tags: string[];
  metadata?: Record<string, unknown>;
  key?: string;
  username?: string;
  /** The customer's email address, as emailField reads it. */
  email?: string;
  max_devices: number;
  /** Floating seats: null binds seats for good. */
  lease_seconds: number | null;
  features?: string[];
  usage_limits?: UsageLimits;
}

/** A new, unused license: its clock starts at first activation, so only `initial_duration` is set. */
export function newLicense(deps: Pick<Deps, 'clock'>, input: NewLicenseInput): License {
  return {
    key: input.key ?? newLicenseKey(),
    app_id: input.subscription.app_id,
    team_id: input.teamId,
    subscription_id: input.subscription.subscription_id,
    status: 'active',
    created_at: iso(deps.clock.now()),
    expires_at: null,
    initial_duration: input.duration_value * durationUnitSeconds[input.duration_unit],
    first_used_at: null,
    last_login: null,
    hwid: null,
    hwids: [],
    max_devices: input.max_devices,
    lease_seconds: input.lease_seconds,
    leases: {},
    hwid_lock: input.hwid_lock,
    hwid_reset_allowed: input.hwid_reset_allowed,
    hwid_reset_interval: input.hwid_reset_interval,
    last_hwid_reset_at: null,
    username: input.username ?? null,
    tags: input.tags,
    metadata: input.metadata ?? {},
    ...(input.features === undefined ? {} : { features: input.features }),
    ...(input.usage_limits === undefined ? {} : { usage_limits: input.usage_limits }),
    ...(input.email === undefined ? {} : { email: input.email }),
    // An owner's own key lives under the team (keys.license): it can only ever collide with the team's own keys.
    ...(input.key === undefined ? {} : { key_scope: 'team' as const }),
  };
}
