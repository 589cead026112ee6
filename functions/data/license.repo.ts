import { QueryCommand, UpdateCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { batchGetItems, itemId } from './batch-get';
import { batchWrite, maxTransactItems, putNew, scanPages, stampUpdate, transactWrite, type Table, type TransactItem } from './db';
import { assignments, equalities } from './expressions';
import { releaseOverflow } from './hwid-overflow';
import { keys, type ItemKey } from './keys';
import type { IndexName } from './table';
import { leasesOf, storedLeases, storedLeaseSchema, type Lease } from './leases';
import { cancelledByCondition, isConditionFailure, withBackoff } from './retry';
import { usernameIndexItem } from './username.repo';
import { usageLimitField, type StoredCounter } from '#shared/entitlements';
import { countersOf } from './usage-counters';

/** Every field of a license as stored; management answers with all of them, /auth with its 13. */
export const licenseSchema = z.lazy(() =>
  z.object({
    key: z.string(),
    app_id: z.string(),
    /** Owner of the app, kept on the license so an ownership check needs no second read. */
    team_id: z.string(),
    subscription_id: z.string(),
    status: z.enum(['active', 'paused']),
    created_at: z.string(),
    /** null until first use: the clock starts at activation. */
    expires_at: z.nullable(z.string()),
    /** Seconds. */
    initial_duration: z.int().check(z.nonnegative()),
    first_used_at: z.nullable(z.string()),
    last_login: z.nullable(z.string()),
    hwid: z.nullable(z.string()),
    hwid_lock: z.boolean(),
    hwid_reset_allowed: z.boolean(),
    /** Seconds between two HWID resets. */
    hwid_reset_interval: z.int().check(z.nonnegative()),
    last_hwid_reset_at: z.nullable(z.string()),
    username: z.nullable(z.string()),
    tags: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()),
    /** Set when the key was the owner's own choice: the item lives under the team (keys.license). */
    key_scope: z.optional(z.literal('team')),
    /** Every bound HWID, oldest first; `hwid` is its first. Items written before seats existed have `hwid` only. */
    hwids: z.optional(z.array(z.string())),
    /** Seats: how many HWIDs may be bound at once. Absent on items written before seats existed: 1. */
    max_devices: z.optional(z.int().check(z.minimum(1))),
    /** Floating seats (leases.ts): seconds a seat is lent per /auth; absent or null: seats are bound for good. */
    lease_seconds: z.optional(z.nullable(z.int().check(z.positive()))),
    /** Each listed HWID's lease, by HWID; present whenever `lease_seconds` is set. */
    leases: z.optional(z.record(z.string(), storedLeaseSchema)),
    /** The license's own features, beside its subscription's. Absent on items written before entitlements existed: none. */
    features: z.optional(z.array(z.string())),
    /** The license's own usage limits, overriding its subscription's of the same name. */
    usage_limits: z.optional(z.record(z.string(), usageLimitField)),
  }),
);
export type License = Omit<z.infer<typeof licenseSchema>, 'hwids' | 'max_devices' | 'lease_seconds' | 'leases'> & {
  hwids: string[];
  max_devices: number;
  lease_seconds: number | null;
  leases: Record<string, Lease>;
  /** Usage counted so far, by counter (data/usage-counters.ts): read from the item, never written with it. */
  counters?: Record<string, StoredCounter>;
};

/** Seats a license may have (docs/management-api.md, "Devices: seats and self-service reset"). */
export const maxDevicesLimit = 100;

export function licenseItem(license: License): Record<string, unknown> {
  // A license that never floated is stored as before leases existed; a floating one always has its `leases` map, which lease updates write into.
  const { lease_seconds, leases, counters: _counters, ...rest } = license;
  return {
    ...keys.licenseOf(license),
    ...keys.licenseByApp(license.app_id, license.created_at, license.key),
    ...rest,
    ...(lease_seconds === null && Object.keys(leases).length === 0 ? {} : { lease_seconds, leases: storedLeases(leases) }),
  };
}

export function parseLicense(item: Record<string, unknown>): License {
  const parsed = licenseSchema.parse(item);
  const counters = countersOf(item);
  return {
    ...parsed,
    hwids: parsed.hwids ?? (parsed.hwid === null ? [] : [parsed.hwid]),
    max_devices: parsed.max_devices ?? 1,
    lease_seconds: parsed.lease_seconds ?? null,
    leases: leasesOf(parsed.leases ?? {}),
    ...(Object.keys(counters).length > 0 ? { counters } : {}),
  };
}

/**
 * A condition that the license still has exactly the bound HWIDs it was read
 * with. An item written before seats existed has `hwid` only and no `hwids`:
 * it matches on `hwid` (it can hold one HWID at most).
 */
export function boundAsRead(license: Pick<License, 'hwids'>, prefix = 'read'): { condition: string; values: Record<string, unknown> } {
  const list = `:${prefix}Hwids`;
  const legacy =
    license.hwids.length === 0
      ? `attribute_not_exists(hwids) AND (attribute_not_exists(hwid) OR attribute_type(hwid, :${prefix}Null))`
      : license.hwids.length === 1
        ? `attribute_not_exists(hwids) AND hwid = :${prefix}Hwid`
        : undefined;
  const values: Record<string, unknown> = { [list]: license.hwids };
  if (license.hwids.length === 0) values[`:${prefix}Null`] = 'NULL';
  if (license.hwids.length === 1) values[`:${prefix}Hwid`] = license.hwids[0];
  return { condition: legacy ? `(hwids = ${list} OR (${legacy}))` : `hwids = ${list}`, values };
}

export function createLicenseRepo(table: Table) {
  /** Licenses by key as `get` finds them, unprocessed keys retried with backoff; absent keys are absent from the map. */
  const getMany = async (licenseKeys: string[], teamId: string): Promise<Map<string, License>> => {
    const items = await batchGetItems(
      table,
      licenseKeys.flatMap((key) => keys.licenseCandidates(key, teamId)),
    );
    const found = new Map<string, License>();
    for (const key of licenseKeys) {
      const [shared, scoped] = keys.licenseCandidates(key, teamId).map((candidate) => items.get(itemId(candidate)));
      const item = scoped ?? shared;
      if (item) found.set(key, parseLicense(item));
    }
    return found;
  };

  return {
    /**
     * The license a team knows by this key: its own custom key, or a key of
     * the shared namespace (which may belong to another team: the caller
     * checks ownership, so that case reads as missing).
     */
    async get(licenseKey: string, teamId: string): Promise<License | undefined> {
      return (await getMany([licenseKey], teamId)).get(licenseKey);
    },

    getMany,

    /** Licenses by item key (a bound-device entry names its license's item), in that order; a missing one is left out. */
    async readItems(itemKeys: ItemKey[]): Promise<License[]> {
      if (itemKeys.length === 0) return [];
      const items = await batchGetItems(table, itemKeys);
      return itemKeys.flatMap((key) => {
        const item = items.get(itemId(key));
        return item ? [parseLicense(item)] : [];
      });
    },

    /**
     * As `get`, one item at a time: the shared namespace first, where every
     * generated key lives, so the usual license costs one read rather than two.
     */
    async getSharedFirst(licenseKey: string, teamId: string): Promise<License | undefined> {
      // One key per batch: the license function is granted BatchGetItem on licenses, and a batch of one costs what a GetItem does.
      for (const key of keys.licenseCandidates(licenseKey, teamId)) {
        const item = (await batchGetItems(table, [key])).get(itemId(key));
        if (item) return parseLicense(item);
      }
      return undefined;
    },

    /** False when the key is taken. */
    create(license: License): Promise<boolean> {
      return putNew(table, licenseItem(license));
    },

    /**
     * Licenses written before the listing index of their own (`gsi2`) carry
     * their listing entry in `gsi1`, which copies whole items: each is moved
     * to `gsi2` (a scan, so for the admin CLI and `npm start`, never a request
     * path; docs/deployment.md, "Upgrading a deployed table"). Safe to run
     * again or beside the service: a license already moved is left alone, and
     * the move changes no field of the license. Returns how many it moved and
     * the apps of every license it saw.
     */
    async moveListingEntries(): Promise<{ moved: number; appIds: string[] }> {
      let moved = 0;
      const appIds = new Set<string>();
      const pages = scanPages(table, {
        expression: 'sk = :sk AND begins_with(pk, :prefix)',
        values: { ':sk': keys.license('').sk, ':prefix': keys.license('').pk },
        projection: 'pk, sk, app_id, gsi1pk',
      });
      for await (const items of pages) {
        for (const item of items) {
          if (typeof item.app_id === 'string') appIds.add(item.app_id);
          if (item.gsi1pk === undefined) continue;
          try {
            await table.doc.send(
              new UpdateCommand({
                TableName: table.name,
                Key: { pk: item.pk, sk: item.sk },
                UpdateExpression: 'SET gsi2pk = gsi1pk, gsi2sk = gsi1sk REMOVE gsi1pk, gsi1sk',
                ConditionExpression: 'attribute_exists(gsi1pk)',
              }),
            );
            moved += 1;
          } catch (error) {
            // Moved by another run, or deleted meanwhile: nothing left to do for it.
            if (!isConditionFailure(error)) throw error;
          }
        }
      }
      return { moved, appIds: [...appIds] };
    },

    ...createLicenseWrites(table),
  };
}

/** Items one filtered query may read: DynamoDB stops at 1 MB anyway, which is about this many licenses. */
const maxReadLimit = 1000;

/**
 * Items one listing request may read before it answers what it found so far.
 * Licenses are about 0.5 KB, at most about 4.5 KB with full metadata: 2000 of
 * them are 1 to 9 query pages of 1 MB, well under a second and a few MB of
 * memory, where a rare filter over a big app would otherwise read the whole
 * partition in one request.
 */
export const maxItemsReadPerList = 2000;

/**
 * Items a listing filtered on what the index does not copy (expiry, first
 * use) may read per request: each is a license read in full (half a read unit
 * each), so 500 of them cost at most 250 read units before the page answers
 * with what it found and a cursor.
 */
export const maxItemsMatchedPerList = 500;

/** Where a listing stands: right after this license in creation order. */
export type ListPosition = Pick<License, 'created_at' | 'key' | 'key_scope'>;

/** Where a listing by expiry stands: right after this license in expiry order. */
export type ExpiryPosition = Pick<License, 'key' | 'key_scope'> & { expires_at: string };

export type ListOrder = 'created_at' | 'expires_at';
export type PositionIn<O extends ListOrder> = O extends 'expires_at' ? ExpiryPosition : ListPosition;

export interface ListFilter {
  status?: License['status'];
  subscription_id?: string;
  tag?: string;
}

interface ListOptions {
  after?: ListPosition | ExpiryPosition;
  filter: ListFilter;
  match?: (license: License) => boolean;
}

/** What a listing queries, where it starts, how it reads its licenses and positions, and what it tests on them. */
interface ListSource {
  query: Omit<QueryCommandInput, 'TableName' | 'Limit' | 'ExclusiveStartKey' | 'ScanIndexForward'>;
  startKey?: Record<string, unknown>;
  /** Whether the query skips entries (a filter expression or `match`): then each read widens. */
  filtering: boolean;
  licenseOf?: (entry: Record<string, unknown>) => ItemKey;
  match?: (license: License, entry: Record<string, unknown>) => boolean;
  positionOf: (entry: Record<string, unknown>) => ListPosition | ExpiryPosition;
}

/** Creation order: the listing index (`gsi2`) copies status, subscription and tags, so those filter in the query. */
function byCreation(appId: string, teamId: string, options: ListOptions): ListSource {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':pk': keys.licensesOfApp(appId) };
  const filters: string[] = [];
  if (options.filter.status !== undefined) {
    names['#status'] = 'status';
    values[':status'] = options.filter.status;
    filters.push('#status = :status');
  }
  if (options.filter.subscription_id !== undefined) {
    values[':subscription'] = options.filter.subscription_id;
    filters.push('subscription_id = :subscription');
  }
  if (options.filter.tag !== undefined) {
    values[':tag'] = options.filter.tag;
    filters.push('contains(tags, :tag)');
  }
  const after = options.after as ListPosition | undefined;
  const { match } = options;
  return {
    query: {
      IndexName: licenseIndex,
      KeyConditionExpression: 'gsi2pk = :pk',
      ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
      ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: values,
    },
    startKey: after && { ...keys.licenseOf({ ...after, team_id: teamId }), ...keys.licenseByApp(appId, after.created_at, after.key) },
    filtering: filters.length > 0 || match !== undefined,
    ...(match ? { match: (license: License) => match(license) } : {}),
    positionOf: (entry) => {
      const { createdAt, licenseKey, keyScope } = keys.licensePosition(entry);
      return { created_at: createdAt, key: licenseKey, ...(keyScope ? { key_scope: keyScope } : {}) };
    },
  };
}

/**
 * Expiry order: its entries carry keys only, so every filter is tested on the
 * license read, and an entry its license has moved on from (the consumer has
 * not yet caught up with an extension) is skipped.
 */
function byExpiry(appId: string, teamId: string, options: ListOptions): ListSource {
  const after = options.after as ExpiryPosition | undefined;
  const licenseItemOf = (entry: Record<string, unknown>): ItemKey => {
    const { licenseKey, keyScope } = keys.expiryPosition(entry);
    return keys.licenseOf({ key: licenseKey, team_id: teamId, ...(keyScope ? { key_scope: keyScope } : {}) });
  };
  const { filter, match } = options;
  return {
    query: { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.expiryOrderOf(appId) } },
    startKey: after && { ...keys.licenseByExpiry(appId, after.expires_at, keys.licenseOf({ ...after, team_id: teamId }).pk) },
    filtering: true,
    licenseOf: licenseItemOf,
    match: (license, entry) =>
      license.expires_at === keys.expiryPosition(entry).expiresAt &&
      license.app_id === appId &&
      (filter.status === undefined || license.status === filter.status) &&
      (filter.subscription_id === undefined || license.subscription_id === filter.subscription_id) &&
      (filter.tag === undefined || license.tags.includes(filter.tag)) &&
      (match === undefined || match(license)),
    positionOf: (entry) => {
      const { expiresAt, licenseKey, keyScope } = keys.expiryPosition(entry);
      return { expires_at: expiresAt, key: licenseKey, ...(keyScope ? { key_scope: keyScope } : {}) };
    },
  };
}

/** A license's expiry as read and as it should become, with the idempotency marker of a bulk request. */
export interface ExpiryChange {
  before: License;
  after: Pick<License, 'expires_at' | 'initial_duration'>;
  marker?: { id: ItemKey; ttl: number };
}

/** The index that lists an app's licenses; its entries carry the keys and the filtered fields only (data/table.ts). */
const licenseIndex: IndexName = 'gsi2';

/** Writes with conditions stay here; `false`/'changed' outcomes mean a condition failed, never a transient error. */
function createLicenseWrites(table: Table) {
  /** Listing entries with their licenses, in their order; `license` is absent for one deleted since the entry was read. */
  const readEntries = async (
    entries: Record<string, unknown>[],
    licenseOf: (entry: Record<string, unknown>) => ItemKey = (entry) => ({ pk: String(entry.pk), sk: String(entry.sk) }),
  ): Promise<{ entry: Record<string, unknown>; license?: License }[]> => {
    if (entries.length === 0) return [];
    const items = await batchGetItems(table, entries.map(licenseOf));
    return entries.map((entry) => {
      const item = items.get(itemId(licenseOf(entry)));
      return item ? { entry, license: parseLicense(item) } : { entry };
    });
  };

  /** The licenses of these listing entries, in their order; one deleted since the entry was read is left out. */
  const licensesOf = async (entries: Record<string, unknown>[]): Promise<License[]> =>
    (await readEntries(entries)).flatMap(({ license }) => (license ? [license] : []));

  const transact = async (items: TransactItem[]): Promise<(string | undefined)[] | undefined> => {
    try {
      await transactWrite(table, items);
      return undefined;
    } catch (error) {
      const reasons = cancelledByCondition(error);
      if (!reasons) throw error;
      return reasons;
    }
  };

  const expiryUpdate = ({ before, after }: ExpiryChange) => ({
    TableName: table.name,
    Key: keys.licenseOf(before),
    UpdateExpression: 'SET expires_at = :expires, initial_duration = :duration',
    ConditionExpression: 'team_id = :team AND expires_at = :oldExpires AND initial_duration = :oldDuration',
    ExpressionAttributeValues: {
      ':expires': after.expires_at,
      ':duration': after.initial_duration,
      ':team': before.team_id,
      ':oldExpires': before.expires_at,
      ':oldDuration': before.initial_duration,
    },
  });

  const expiryItems = (change: ExpiryChange): TransactItem[] => {
    const { marker } = change;
    const update: TransactItem = { Update: expiryUpdate(change) };
    if (!marker) return [update];
    return [{ Put: { TableName: table.name, Item: { ...marker.id, ttl: marker.ttl }, ConditionExpression: 'attribute_not_exists(pk)' } }, update];
  };

  const newLicense = (license: License): TransactItem => ({
    Put: { TableName: table.name, Item: licenseItem(license), ConditionExpression: 'attribute_not_exists(pk)' },
  });

  return {
    /**
     * Up to 100 new licenses in one transaction: all written, or none when any
     * key exists already (BatchWriteItem cannot carry that condition). `alongside`
     * are written in the same transaction (a bulk request's record of its progress).
     */
    async createAll(licenses: License[], alongside: TransactItem[] = []): Promise<'created' | 'key_taken'> {
      return (await transact([...licenses.map(newLicense), ...alongside])) ? 'key_taken' : 'created';
    },

    /** A license with its username index item, together or not at all. */
    async createWithCredentials(license: License, passwordHash: string): Promise<'created' | 'key_taken' | 'username_taken'> {
      const username = license.username;
      if (username === null) throw new Error('createWithCredentials needs a license with a username');
      const reasons = await transact([
        newLicense(license),
        {
          Put: {
            TableName: table.name,
            Item: usernameIndexItem({ app_id: license.app_id, username, license_key: license.key, password_hash: passwordHash }),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ]);
      if (!reasons) return 'created';
      return reasons[0] === 'ConditionalCheckFailed' ? 'key_taken' : 'username_taken';
    },

    /** Removes licenses unconditionally (undoing a bulk create), retrying unprocessed items with backoff. */
    async deleteAll(licenses: License[]): Promise<void> {
      await batchWrite(
        table,
        licenses.map((license) => ({ DeleteRequest: { Key: keys.licenseOf(license) } })),
        'deletes',
      );
    },

    /**
     * Replaces expiry fields of a license as read, only if nobody changed them
     * since (a concurrent extend or first activation makes it 'changed': read
     * again and recompute). A transaction even for one item: its token makes a
     * resent attempt succeed instead of failing its own condition, which would
     * read as 'changed' and extend the license a second time. With a marker,
     * the marker is created in the same transaction: an existing marker means
     * this work was done already.
     */
    async replaceExpiry(change: ExpiryChange): Promise<'updated' | 'already_done' | 'changed'> {
      const reasons = await transact(expiryItems(change));
      if (!reasons) return 'updated';
      return change.marker && reasons[0] === 'ConditionalCheckFailed' ? 'already_done' : 'changed';
    },

    /**
     * Several expiry changes in one transaction (at most 100 items: 50 with
     * markers), all or none: 'changed' when any condition failed or the store
     * refused the request outright (none was applied either way), 'unknown'
     * when the write kept failing in a way that may hide an applied one. Sent
     * again with the same changes in the same API request, the transaction has
     * the same token, so one that was applied unheard answers 'updated' then.
     */
    async replaceExpiries(changes: ExpiryChange[]): Promise<'updated' | 'changed' | 'unknown'> {
      try {
        return (await transact(changes.flatMap(expiryItems))) ? 'changed' : 'updated';
      } catch (error) {
        // A client fault is a refusal before anything was written, except a transaction of the same token still running.
        const fault = (error as { $fault?: string; name?: string } | null) ?? {};
        return fault.$fault === 'client' && fault.name !== 'TransactionInProgressException' ? 'changed' : 'unknown';
      }
    },

    /**
     * Deletes a license as read, with the index items that point at it, in one
     * transaction. The license must still have the HWIDs and username it was
     * read with, so a concurrent bind or rename cannot leave an orphaned index
     * item. An index item held by another license (same HWID bound elsewhere)
     * is left alone, and checked to still be so.
     */
    async remove(license: License, holds: { hwidIndex: readonly string[]; usernameIndex: boolean }): Promise<boolean> {
      const indexItem = (key: ItemKey, held: boolean): TransactItem =>
        held
          ? {
              Delete: {
                TableName: table.name,
                Key: key,
                ConditionExpression: 'license_key = :key',
                ExpressionAttributeValues: { ':key': license.key },
              },
            }
          : {
              ConditionCheck: {
                TableName: table.name,
                Key: key,
                ConditionExpression: 'attribute_not_exists(pk) OR license_key <> :key',
                ExpressionAttributeValues: { ':key': license.key },
              },
            };
      const bound = boundAsRead(license);
      const items: TransactItem[] = [
        {
          Delete: {
            TableName: table.name,
            Key: keys.licenseOf(license),
            ConditionExpression: `team_id = :team AND ${bound.condition} AND username = :username`,
            ExpressionAttributeValues: { ':team': license.team_id, ':username': license.username, ...bound.values },
          },
        },
      ];
      if (license.username !== null) items.push(indexItem(keys.username(license.app_id, license.username), holds.usernameIndex));
      // A license with nearly 100 devices has more index items than the transaction has room for: the ones it
      // holds beyond that are deleted right after, and a check on one it does not hold is left out.
      const room = maxTransactItems - items.length;
      const deviceItems = license.hwids.map((hwid) => ({ hwid, held: holds.hwidIndex.includes(hwid) }));
      items.push(...deviceItems.slice(0, room).map(({ hwid, held }) => indexItem(keys.hwid(license.app_id, hwid), held)));
      if (await transact(items)) return false;
      const overflow = deviceItems.slice(room).filter(({ held }) => held);
      await releaseOverflow(table, license, overflow.map(({ hwid }) => hwid));
      return true;
    },

    /**
     * Sets a flag of a license as read to the opposite of what was read, only
     * if it still holds that value, so two concurrent flips are two flips. A
     * transaction, so that a resent attempt is not taken for a concurrent flip
     * and flipped back. Undefined when the flag (or the owner) changed since.
     */
    async flip(license: License, flag: LicenseFlag): Promise<License | undefined> {
      const reasons = await transact([
        {
          Update: {
            TableName: table.name,
            Key: keys.licenseOf(license),
            UpdateExpression: 'SET #flag = :new',
            ConditionExpression: 'team_id = :team AND #flag = :old',
            ExpressionAttributeNames: { '#flag': flag },
            ExpressionAttributeValues: { ':new': !license[flag], ':old': license[flag], ':team': license.team_id },
          },
        },
      ]);
      return reasons ? undefined : { ...license, [flag]: !license[flag] };
    },

    /**
     * Sets fields of a license of this team, only while every field in
     * `expected` still holds the value it was read with. Every value set is a
     * constant, so a resent attempt writes the same again. The team check in
     * the same condition makes another owner's license indistinguishable from
     * a missing one. Undefined when any condition fails; otherwise the license
     * as stored afterwards.
     */
    async updateFields(
      licenseKey: string,
      teamId: string,
      changes: Partial<LicenseSettings>,
      expected: Partial<Pick<License, keyof LicenseSettings | 'app_id'>> = {},
      appScope?: ReadonlySet<string>,
    ): Promise<License | undefined> {
      const set = assignments(changes);
      const unchanged = equalities(expected);
      // An API key limited to applications (at most 50: IN takes 100) writes only their licenses.
      const scope = [...(appScope ?? [])].map((appId, index) => [`:scope${index}`, appId] as const);
      const names = { ...set.names, ...unchanged.names };
      const values = { ':team': teamId, ...set.values, ...unchanged.values, ...Object.fromEntries(scope) };
      const conditions = [
        'team_id = :team',
        ...(unchanged.text ? [unchanged.text] : []),
        ...(appScope ? [`app_id IN (${scope.map(([name]) => name).join(', ')})`] : []),
      ];
      // The key names the license in the shared namespace or under the team; the team condition makes the wrong one fail.
      for (const key of keys.licenseCandidates(licenseKey, teamId)) {
        try {
          // A write that meets a running transaction on the license is refused (TransactionConflictException): wait and send it again.
          const { Attributes } = await withBackoff(() =>
            table.doc.send(
              new UpdateCommand(
                stampUpdate(table, {
                  TableName: table.name,
                  Key: key,
                  UpdateExpression: `SET ${set.text}`,
                  ConditionExpression: conditions.join(' AND '),
                  ExpressionAttributeNames: names,
                  ExpressionAttributeValues: values,
                  ReturnValues: 'ALL_NEW',
                }),
              ),
            ),
          );
          return parseLicense(Attributes!);
        } catch (error) {
          if (!isConditionFailure(error)) throw error;
        }
      }
      return undefined;
    },

    /**
     * Licenses of an app by creation time (`gsi2`) or by expiry (the app's
     * expiry order, which holds licenses that have an expiry only), filtered,
     * starting after a given position. Queries on until `limit` matches, the
     * end, or the read bound, since a filtered query page may hold few or
     * none. `next` is where the following page starts: after the last license
     * returned when another match was seen, after the last item read when the
     * read bound cut the page short, absent at the end.
     */
    async listByApp<O extends ListOrder = 'created_at'>(
      appId: string,
      teamId: string,
      options: {
        limit: number;
        ascending: boolean;
        order?: O;
        after?: PositionIn<O>;
        filter: ListFilter;
        /** A condition on what the index does not copy (expiry, first use): tested on each license read. */
        match?: (license: License) => boolean;
      },
    ): Promise<{ licenses: License[]; next?: PositionIn<O> }> {
      const source = options.order === 'expires_at' ? byExpiry(appId, teamId, options) : byCreation(appId, teamId, options);
      const { match } = source;
      let startKey = source.startKey;
      const found: { entry: Record<string, unknown>; license?: License }[] = [];
      let unread = match ? maxItemsMatchedPerList : maxItemsReadPerList;
      // Items read past the last one returned are read again by the next page, so
      // read little at first; a filter that matches rarely widens each read.
      let readLimit = options.limit + 1;
      do {
        const wanted = options.limit + 1 - found.length;
        const page = await table.doc.send(
          new QueryCommand({
            ...source.query,
            TableName: table.name,
            ScanIndexForward: options.ascending,
            Limit: Math.min(source.filtering ? readLimit : wanted, unread),
            ExclusiveStartKey: startKey,
          }),
        );
        const entries = page.Items ?? [];
        const read = match
          ? (await readEntries(entries, source.licenseOf)).filter(({ entry, license }) => license !== undefined && match(license, entry))
          : entries.map((entry) => ({ entry }));
        found.push(...read.slice(0, wanted));
        unread -= page.ScannedCount ?? 0;
        startKey = page.LastEvaluatedKey;
        readLimit = Math.min(maxReadLimit, readLimit * 2);
      } while (startKey && found.length <= options.limit && unread > 0);

      const answered = found.slice(0, options.limit);
      const licenses = match ? answered.map(({ license }) => license!) : await licensesOf(answered.map(({ entry }) => entry));
      const positionOf = source.positionOf as (entry: Record<string, unknown>) => PositionIn<O>;
      if (found.length > options.limit) return { licenses, next: positionOf(answered.at(-1)!.entry) };
      if (!startKey) return { licenses };
      return { licenses, next: positionOf(startKey) };
    },

    /** Every license of an app, a page at a time, in creation order (the admin CLI's recount; never a request path). */
    async *pagesOfApp(appId: string): AsyncGenerator<License[]> {
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await table.doc.send(
          new QueryCommand({
            TableName: table.name,
            IndexName: licenseIndex,
            KeyConditionExpression: 'gsi2pk = :pk',
            ExpressionAttributeValues: { ':pk': keys.licensesOfApp(appId) },
            Limit: 100,
            ExclusiveStartKey: startKey,
          }),
        );
        yield await licensesOf(page.Items ?? []);
        startKey = page.LastEvaluatedKey;
      } while (startKey);
    },
  };
}

export type LicenseFlag = 'hwid_lock' | 'hwid_reset_allowed';

export type HwidSettings = Pick<License, 'hwid_lock' | 'hwid_reset_allowed' | 'hwid_reset_interval'>;

/** What management routes set on a license in a single conditional update. */
export type LicenseSettings = HwidSettings & Pick<License, 'status' | 'subscription_id' | 'metadata' | 'features' | 'usage_limits'>;
