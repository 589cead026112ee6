import type { Deps } from '#core/deps';
import { managementView, type LicenseRecord } from '#core/domain/license-view';
import { accessDenied, notFound } from '#core/domain/ownership';
import type { OwnerInput } from '#core/http/handler';
import type { License } from '#data/license.repo';
import { keys } from '#data/keys';
import type { findSchema } from './schemas';

export type MatchKind = 'key' | 'username' | 'hwid';

export interface FoundLicense {
  /** How the query found the license; a key that is also a username or bound HWID lists every way. */
  matched: MatchKind[];
  license: LicenseRecord;
}

const keyForm = /^[A-Za-z0-9_-]{1,256}$/;

/** The query as /license/create stores a username (trimmed, NFC), when it can be one. */
function usernameForm(query: string): string | undefined {
  const username = query.trim().normalize('NFC');
  return username.length >= 3 && username.length <= 50 ? username : undefined;
}

/**
 * Looks the query up as a license key, a username and a bound HWID of one
 * application at once (docs/management-api.md, "Finding licenses"): the key's
 * two possible items, the username's index item and the device's entries in
 * parallel, then the licenses these name and their subscriptions. The app is
 * read only when no license of it was found: a license found in it already
 * says whose it is.
 */
export async function findLicenses(deps: Deps, input: OwnerInput<typeof findSchema>): Promise<{ matches: FoundLicense[] }> {
  const { app_id: appId, query, teamId } = input;
  const username = usernameForm(query);
  const [byKey, usernameEntry, bound] = await Promise.all([
    keyForm.test(query) ? deps.repos.licenses.get(query, teamId) : undefined,
    username === undefined ? undefined : deps.repos.usernames.get(appId, username),
    deps.repos.lookups.licensesBoundTo(appId, query),
  ]);
  const byUsername =
    usernameEntry === undefined || usernameEntry.license_key === byKey?.key ? undefined : deps.repos.licenses.getSharedFirst(usernameEntry.license_key, teamId);
  const onDevice = bound.filter((key) => byKey === undefined || key.pk !== keys.licenseOf(byKey).pk);
  const [namedByUsername, read] = await Promise.all([byUsername, deps.repos.licenses.readItems(onDevice)]);

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

  const licenses = [...matches.values()];
  if (licenses.some(({ license }) => license.team_id !== teamId)) throw accessDenied();
  if (licenses.length === 0) {
    const app = await deps.repos.apps.get(appId);
    if (!app) throw notFound.app();
    if (app.team_id !== teamId) throw accessDenied();
    return { matches: [] };
  }
  const subscriptions = await deps.repos.subscriptions.getMany([...new Set(licenses.map(({ license }) => license.subscription_id))]);
  const now = deps.clock.now();
  const kinds: MatchKind[] = ['key', 'username', 'hwid'];
  return {
    matches: licenses
      .sort((a, b) => b.license.created_at.localeCompare(a.license.created_at) || a.license.key.localeCompare(b.license.key))
      .map(({ license, matched }) => ({
        matched: kinds.filter((kind) => matched.has(kind)),
        license: managementView(license, subscriptions.get(license.subscription_id), now),
      })),
  };
}
