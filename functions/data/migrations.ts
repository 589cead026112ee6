/**
 * The data steps of upgrading a table written by an earlier version
 * (docs/deployment.md, "Upgrading a deployed table"): each scans the whole
 * table, so the admin CLI and `npm start` run them, never a request path, and
 * each is safe to run again or beside the service.
 */
import { conditional, getItem, pages, putNew, updateItem, type PageInput, type Table, type UpdateParts } from './db';
import { keys } from './keys';
import * as lookups from './lookup.repo';
import { appSchema } from './model/app';
import { lookupMigration } from './model/lookup';
import { trialSecretsMigration } from './model/trial';

/**
 * Licenses written before the listing index of their own (`gsi2`) carry
 * their listing entry in `gsi1`, which copies whole items: each is moved
 * to `gsi2`. A license already moved is left alone, and the move changes
 * no field of the license. Returns how many it moved and the apps of every
 * license it saw.
 */
export async function moveListingEntries(table: Table): Promise<{ moved: number; appIds: string[] }> {
  let moved = 0;
  const appIds = new Set<string>();
  const licenses = pages(
    table,
    {
      FilterExpression: 'sk = :sk AND begins_with(pk, :prefix)',
      ExpressionAttributeValues: { ':sk': keys.license('').sk, ':prefix': keys.license('').pk },
      ProjectionExpression: 'pk, sk, app_id, gsi1pk',
    },
    { scan: true },
  );
  for await (const items of licenses) {
    for (const item of items) {
      if (typeof item.app_id === 'string') appIds.add(item.app_id);
      if (item.gsi1pk === undefined) continue;
      const written = await conditional(
        updateItem(
          table,
          { pk: String(item.pk), sk: String(item.sk) },
          { UpdateExpression: 'SET gsi2pk = gsi1pk, gsi2sk = gsi1sk REMOVE gsi1pk, gsi1sk', ConditionExpression: 'attribute_exists(gsi1pk)' },
          { unstamped: true },
        ),
      );
      // Not held: moved by another run, or deleted meanwhile; nothing left to do for it.
      if (written.held) moved += 1;
    }
  }
  return { moved, appIds: [...appIds] };
}

/**
 * Applications created before they were listed per team carry no index
 * entry: this gives each one its entry. Returns how many it indexed.
 */
export function indexUnlisted(table: Table): Promise<number> {
  return updateEachFound(
    table,
    { FilterExpression: 'sk = :sk AND begins_with(pk, :prefix) AND attribute_not_exists(gsi1pk)', ExpressionAttributeValues: { ':sk': keys.app('').sk, ':prefix': keys.app('').pk } },
    (item) => {
      const app = appSchema.parse(item);
      const entry = keys.appByTeam(app.team_id, app.created_at, app.app_id);
      return {
        UpdateExpression: 'SET gsi1pk = :pk, gsi1sk = :sk',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(gsi1pk)',
        ExpressionAttributeValues: { ':pk': entry.gsi1pk, ':sk': entry.gsi1sk },
      };
    },
  );
}

/**
 * Applications whose trials were configured before trials had secrets get
 * theirs, as `/app/settings` gives one with a first `trial`: the trials they
 * start from then on get keys the application names for the device
 * (client/trial.ts), which a warm function reads without the device's claim.
 * Trials started before keep their random keys. Returns how many it gave one,
 * and marks the table: applications given a trial since have their secret.
 */
export async function giveTrialSecrets(table: Table, newSecret: () => string): Promise<number> {
  const given = await updateEachFound(
    table,
    {
      FilterExpression: 'sk = :sk AND begins_with(pk, :prefix) AND attribute_exists(trial) AND NOT attribute_type(trial, :null) AND attribute_not_exists(trial_secret)',
      ExpressionAttributeValues: { ':sk': keys.app('').sk, ':prefix': keys.app('').pk, ':null': 'NULL' },
      ProjectionExpression: 'pk, sk',
    },
    () => ({ UpdateExpression: 'SET trial_secret = :secret', ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(trial_secret)', ExpressionAttributeValues: { ':secret': newSecret() } }),
  );
  await markRun(table, trialSecretsMigration);
  return given;
}

/**
 * Writes the lookup entries of every license (lookup.repo.ts), its email's
 * among them: for licenses bound, activated or given an email before the
 * events consumer kept these entries, or whose entries were lost. A put
 * writes what the consumer would. Marks the table as migrated.
 */
export async function writeLookupEntries(table: Table): Promise<{ licenses: number; entries: number }> {
  let licenses = 0;
  let entries = 0;
  const licenseItems = pages(
    table,
    {
      FilterExpression: 'sk = :sk AND begins_with(pk, :prefix)',
      ExpressionAttributeValues: { ':sk': keys.license('').sk, ':prefix': keys.license('').pk },
      ProjectionExpression: 'pk, app_id, #key, hwid, hwids, expires_at, email',
      ExpressionAttributeNames: { '#key': 'key' },
    },
    { scan: true },
  );
  for await (const items of licenseItems) {
    const changes = items.flatMap((item) => lookups.lookupChanges(undefined, item));
    licenses += items.length;
    entries += changes.length;
    await lookups.apply(table, changes);
  }
  await markRun(table, lookupMigration);
  return { licenses, entries };
}

type MarkedMigration = typeof lookupMigration | typeof trialSecretsMigration;

/** Whether a step that marks the table when done (`writeLookupEntries`, `giveTrialSecrets`) ran on it. */
export async function hasRun(table: Table, migration: MarkedMigration): Promise<boolean> {
  return (await getItem(table, keys.migration(migration))) !== undefined;
}

function markRun(table: Table, migration: MarkedMigration): Promise<boolean> {
  return putNew(table, { ...keys.migration(migration), done: true });
}

/**
 * Each item a scan finds, updated under its condition and without an actor (a data step, nobody's change): how many
 * updates held.
 */
async function updateEachFound(table: Table, scan: PageInput, update: (item: Record<string, unknown>) => UpdateParts): Promise<number> {
  let held = 0;
  for await (const items of pages(table, scan, { scan: true })) {
    for (const item of items) {
      const written = await conditional(updateItem(table, { pk: String(item.pk), sk: String(item.sk) }, update(item), { unstamped: true }));
      // Not held: another run or writer did it first, or the item was deleted meanwhile; nothing is left to do for it.
      if (written.held) held += 1;
    }
  }
  return held;
}
