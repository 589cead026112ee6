/**
 * `data` of a successful `/auth`, `/release` and `/reset-hwid` (docs/client-api.md#license-data).
 * Written out rather than taken from the owner client's generated schema, as this package is
 * published alone; test/unit/app-client-types.test.ts holds it to the OpenAPI document.
 */
export interface LicenseData {
  key: string;
  created_at: string;
  expires_at: string | null;
  initial_duration: string;
  first_used_at: string | null;
  hwid_lock: boolean;
  last_hwid_reset_at: string | null;
  hwid_reset_cooldown: number;
  hwid_reset_allowed: boolean;
  username: string | null;
  last_login: string;
  subscription_level: number;
  subscription_name: string;
  /** Licenses with several seats, and floating ones. */
  hwids?: string[];
  max_devices?: number;
  /** Floating licenses: this device's lease end (null once released). */
  lease_expires_at?: string | null;
  features?: string[];
  grace_until?: string;
  /** The token asked for with the check, or the one of a borrowed seat. */
  offline_token?: string;
}

/** `data` of `/usage`: the counter after the call. */
export interface UsageCounter {
  counter: string;
  used: number;
  limit: number;
  overage: number;
  remaining: number;
  period: 'day' | 'week' | 'month' | 'year' | 'none';
  resets_at: string | null;
}

/** A license key, or the username and password registered for one. */
export type Credentials = { license: string; username?: undefined; password?: undefined } | { username: string; password: string; license?: undefined };

/** `data` of `/license-file`: the license data and the file itself (a compact JWS, or a JWE holding one). */
export type LicenseFileData = LicenseData & { license_file: string };

/** `data` of `/trial` (`TRIAL_STARTED`, `TRIAL_RESUMED`): the trial license's data and its key, which the program keeps and checks with from then on. */
export type TrialData = LicenseData & { license: string };
