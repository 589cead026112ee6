import type { Deps } from '#core/deps';
import { standingOf, type Standing } from '#data/model/stats';
import { AdminError } from './owners';

/**
 * Table upkeep for operators: recounting an application's totals of
 * /app/stats, and the data step of an upgrade (docs/deployment.md,
 * "Upgrading a deployed table").
 */
type MaintenanceDeps = Pick<Deps, 'repos' | 'clock'>;

/**
 * Counts an application's licenses again and sets its totals and expiry
 * counts to what it found. Changes the events consumer records while this
 * runs may be counted twice or not at all: run it when the app is quiet, or
 * again.
 */
export async function recountStats(deps: MaintenanceDeps, input: { appId: string }) {
  if (!(await deps.repos.apps.get(input.appId))) throw new AdminError(`No app ${input.appId}`);
  const standings: Standing[] = [];
  for await (const licenses of deps.repos.licenses.pagesOfApp(input.appId)) {
    for (const license of licenses) {
      const standing = standingOf(license);
      if (standing) standings.push(standing);
    }
  }
  await deps.repos.events.replaceTotals(input.appId, standings);
  return { app_id: input.appId, totals: await deps.repos.events.licenseTotals(input.appId, deps.clock.now()) };
}

/** Moves every license's listing entry to its own index, then recounts every app that has licenses. */
export async function migrateLicenseIndex(deps: MaintenanceDeps) {
  const { moved, appIds } = await deps.repos.licenses.moveListingEntries();
  let recounted = 0;
  for (const appId of appIds) {
    // A license can outlive its app only in a table edited by hand: there is nothing to count for it.
    if (!(await deps.repos.apps.get(appId))) continue;
    await recountStats(deps, { appId });
    recounted += 1;
  }
  return { moved, recounted_apps: recounted };
}

/**
 * Writes the lookup entries of /license/find and the listing by expiry for
 * every license (docs/deployment.md, "Upgrading a deployed table"): the
 * events consumer keeps them from then on.
 */
export async function migrateLookupEntries(deps: MaintenanceDeps) {
  const { licenses, entries } = await deps.repos.lookups.writeAll();
  return { licenses, entries };
}
