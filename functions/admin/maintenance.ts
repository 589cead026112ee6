import type { Deps } from '#core/deps';
import { newAppSecret } from '#core/ids';
import { standingOf, type Standing } from '#data/model/stats';
import { AdminError } from './owners';
import * as apps from '#data/app.repo';
import * as events from '#data/events.repo';
import * as licenseList from '#data/license-list.repo';
import * as migrations from '#data/migrations';

/**
 * Table upkeep for operators: recounting an application's totals of
 * /app/stats, and the data step of an upgrade (docs/deployment.md,
 * "Upgrading a deployed table").
 */
type MaintenanceDeps = Pick<Deps, 'table' | 'clock'>;

/**
 * Counts an application's licenses again and sets its totals and expiry
 * counts to what it found. Changes the events consumer records while this
 * runs may be counted twice or not at all: run it when the app is quiet, or
 * again.
 */
export async function recountStats(deps: MaintenanceDeps, input: { appId: string }) {
  if (!(await apps.get(deps.table, input.appId))) throw new AdminError(`No app ${input.appId}`);
  const standings: Standing[] = [];
  for await (const licenses of licenseList.pagesOfApp(deps.table, input.appId)) {
    for (const license of licenses) {
      const standing = standingOf(license);
      if (standing) standings.push(standing);
    }
  }
  await events.replaceTotals(deps.table, input.appId, standings);
  return { app_id: input.appId, totals: await events.licenseTotals(deps.table, input.appId, deps.clock.now()) };
}

/** Moves every license's listing entry to its own index, then recounts every app that has licenses. */
export async function migrateLicenseIndex(deps: MaintenanceDeps) {
  const { moved, appIds } = await migrations.moveListingEntries(deps.table);
  let recounted = 0;
  for (const appId of appIds) {
    // A license can outlive its app only in a table edited by hand: there is nothing to count for it.
    if (!(await apps.get(deps.table, appId))) continue;
    await recountStats(deps, { appId });
    recounted += 1;
  }
  return { moved, recounted_apps: recounted };
}

/** Gives every application whose trials were configured before trials had secrets its secret. */
export async function migrateTrialSecrets(deps: MaintenanceDeps) {
  return { apps: await migrations.giveTrialSecrets(deps.table, newAppSecret) };
}

/**
 * Writes the lookup entries of /license/find and the listing by expiry for
 * every license (docs/deployment.md, "Upgrading a deployed table"): the
 * events consumer keeps them from then on.
 */
export async function migrateLookupEntries(deps: MaintenanceDeps) {
  const { licenses, entries } = await migrations.writeLookupEntries(deps.table);
  return { licenses, entries };
}
