import { keys } from './keys';
import type { HwidIndex } from './model/hwid';
import { storedLicense, type License } from './model/license';
import type { UsernameIndex } from './model/username';

/**
 * The items that several repositories write in their transactions (a license
 * with its HWID and username index items, Stripe's licenses), whole: the
 * model's attributes under the keys of keys.ts. An item only its own
 * repository writes is built there.
 */
export function licenseItem(license: License): Record<string, unknown> {
  return { ...keys.licenseOf(license), ...keys.licenseByApp(license.app_id, license.created_at, license.key), ...storedLicense(license) };
}

export function hwidIndexItem(entry: HwidIndex): Record<string, unknown> {
  return { ...keys.hwid(entry.app_id, entry.hwid), ...entry };
}

export function usernameIndexItem(entry: UsernameIndex): Record<string, unknown> {
  return { ...keys.username(entry.app_id, entry.username), ...entry };
}
