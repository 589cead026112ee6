import { conditional, getItem, putNew, queryIndexPartition, updateExisting, updateItem, type Table } from './db';
import { assignments, firstAssignments } from './expressions';
import { keys } from './keys';
import { appSchema, type App, type AppChange, type AppSecrets, type AppSettingsChange, type StoredSigningKey } from './model/app';

export async function get(table: Table, appId: string): Promise<App | undefined> {
  const item = await getItem(table, keys.app(appId));
  return item ? appSchema.parse(item) : undefined;
}

export function create(table: Table, app: App): Promise<boolean> {
  return putNew(table, { ...keys.app(app.app_id), ...keys.appByTeam(app.team_id, app.created_at, app.app_id), ...app });
}

/**
 * Stores the first key of an application that has none. Of two racing
 * writers (or a write whose answer was lost and is resent) the stored key
 * wins: the loser gets the winner's key back from a consistent read.
 */
export async function setSigningKeyIfAbsent(table: Table, appId: string, key: StoredSigningKey): Promise<StoredSigningKey | undefined> {
  const written = await conditional(
    updateItem(
      table,
      keys.app(appId),
      { UpdateExpression: 'SET signing_key = :key', ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(signing_key)', ExpressionAttributeValues: { ':key': key } },
      { unstamped: true },
    ),
  );
  if (written.held) return key;
  const item = await getItem(table, keys.app(appId), { consistentRead: true });
  return item ? appSchema.parse(item).signing_key : undefined;
}

/** Rotation: the new key replaces the current one; resending the same key sets the same value. */
export function replaceSigningKey(table: Table, appId: string, key: StoredSigningKey): Promise<boolean> {
  return updateExisting(table, keys.app(appId), 'SET signing_key = :key', { ':key': key });
}

/**
 * Every setting sent, in one write; sent again it sets the same values. An
 * application keeps the first value of each secret it got: a race of two first
 * switches on writes one. False: no such application.
 */
export function updateSettings(table: Table, appId: string, change: AppSettingsChange, secrets: AppSecrets = {}): Promise<boolean> {
  return setFields(table, appId, change, secrets);
}

/** The name and status sent, in one write, as settings are. */
export function update(table: Table, appId: string, change: AppChange): Promise<boolean> {
  return setFields(table, appId, change);
}

/** The fields given a value, and those of `first` that the item does not have yet. */
function setFields(table: Table, appId: string, fields: Record<string, unknown>, first: Record<string, unknown> = {}): Promise<boolean> {
  const defined = (values: Record<string, unknown>) => Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
  const set = assignments(defined(fields));
  const kept = firstAssignments(defined(first));
  const text = [set.text, kept.text].filter((clauses) => clauses !== '').join(', ');
  return updateExisting(table, keys.app(appId), `SET ${text}`, { ...set.values, ...kept.values }, { ...set.names, ...kept.names });
}

/** A team has a handful of applications: all of them, oldest first. */
export async function listByTeam(table: Table, teamId: string): Promise<App[]> {
  return (await queryIndexPartition(table, keys.appsOfTeam(teamId))).map((item) => appSchema.parse(item));
}
