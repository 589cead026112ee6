import type { Deps } from '#core/deps';
import { managementView, type LicenseRecord } from '#core/domain/license-view';
import { emailField } from '#core/domain/fields';
import { accessDenied, notFound } from '#core/domain/ownership';
import type { OwnerInput } from '#core/http/handler';
import type { License } from '#data/model/license';
import { keys } from '#data/keys';
import type { findSchema } from './schemas';
import * as apps from '#data/app.repo';
import * as licenses from '#data/license.repo';
import * as lookups from '#data/lookup.repo';
import * as subscriptions from '#data/subscription.repo';
import * as usernames from '#data/username.repo';

export type MatchKind = 'key' | 'username' | 'hwid' | 'email';

export interface FoundLicense {
  /** How the query found the license; a key that is also a username, bound HWID or email lists every way. */
  matched: MatchKind[];
  license: LicenseRecord;
}

const keyForm = /^[A-Za-z0-9_-]{1,256}$/;

/** The query as /license/create stores a username (trimmed, NFC), when it can be one. */
function usernameForm(query: string): string | undefined {
  const username = query.trim().normalize('NFC');
  return username.length >= 3 && username.length <= 50 ? username : undefined;
}

/** The query as licenses store an email (trimmed, lower-cased), when it is an address. */
function emailForm(query: string): string | undefined {
  if (!query.includes('@')) return undefined;
  const parsed = emailField.safeParse(query);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Looks the query up as a license key, a username, a bound HWID and, when it
 * is an email address, a customer's email of one application at once
 * (docs/management-api.md, "Finding licenses"): the key's two possible items,
 * the username's index item, the device's entries and the email's entries in
 * parallel, then the licenses these name and their subscriptions. The app is
 * read only when no license of it was found: a license found in it already
 * says whose it is.
 */
export async function findLicenses(deps: Deps, input: OwnerInput<typeof findSchema>): Promise<{ matches: FoundLicense[] }> {
  const { app_id: appId, query, teamId } = input;
  const username = usernameForm(query);
  const email = emailForm(query);
  const [byKey, usernameEntry, bound, withEmail] = await Promise.all([
    keyForm.test(query) ? licenses.get(deps.table, query, teamId) : undefined,
    username === undefined ? undefined : usernames.get(deps.table, appId, username),
    lookups.licensesBoundTo(deps.table, appId, query),
    email === undefined ? [] : lookups.licensesWithEmail(deps.table, appId, email),
  ]);
  const byUsername =
    usernameEntry === undefined || usernameEntry.license_key === byKey?.key ? undefined : licenses.getSharedFirst(deps.table, usernameEntry.license_key, teamId);
  // A license both bound to the query and carrying it as its email is read once.
  const named = new Map([...bound, ...withEmail].map((key) => [key.pk, key]));
  const onDeviceOrEmail = [...named.values()].filter((key) => byKey === undefined || key.pk !== keys.licenseOf(byKey).pk);
  const [namedByUsername, read] = await Promise.all([byUsername, licenses.readItems(deps.table, onDeviceOrEmail)]);

  const matches = new Map<string, { license: License; matched: Set<MatchKind> }>();
  const add = (license: License | undefined, kind: MatchKind) => {
    if (!license || license.app_id !== appId) return;
    const found = matches.get(license.key) ?? { license, matched: new Set<MatchKind>() };
    found.matched.add(kind);
    matches.set(license.key, found);
  };
  add(byKey, 'key');
  const all = [byKey, namedByUsername, ...read].filter((license): license is License => license !== undefined);
  add(
    all.find((license) => license.key === usernameEntry?.license_key && license.username?.toLowerCase() === usernameEntry.username.toLowerCase()),
    'username',
  );
  // An entry can lag a change by the stream's delay: only a license that lists the device now counts.
  for (const license of all) if (license.hwids.includes(query)) add(license, 'hwid');
  for (const license of all) if (email !== undefined && license.email === email) add(license, 'email');

  const found = [...matches.values()];
  if (found.some(({ license }) => license.team_id !== teamId)) throw accessDenied();
  if (found.length === 0) {
    const app = await apps.get(deps.table, appId);
    if (!app) throw notFound.app();
    if (app.team_id !== teamId) throw accessDenied();
    return { matches: [] };
  }
  const tiers = await subscriptions.getMany(deps.table, [...new Set(found.map(({ license }) => license.subscription_id))]);
  const now = deps.clock.now();
  const kinds: MatchKind[] = ['key', 'username', 'hwid', 'email'];
  return {
    matches: found
      .sort((a, b) => b.license.created_at.localeCompare(a.license.created_at) || a.license.key.localeCompare(b.license.key))
      .map(({ license, matched }) => ({
        matched: kinds.filter((kind) => matched.has(kind)),
        license: managementView(license, tiers.get(license.subscription_id), now),
      })),
  };
}
