import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ItemCache } from './item-cache';
import { addSeconds } from '#shared/clock';
import { hasOwnEntry } from '#shared/own-keys';
import { appSchema, type App } from './app.repo';
import { batchGetItems, itemId } from './batch-get';
import { stampUpdate, transactWrite, type Table, type TransactItem } from './db';
import { cancellationCodes, isConditionFailure } from './retry';
import { hwidIndexItem } from './hwid.repo';
import { releaseStaleIndexItem } from './hwid-overflow';
import { keys, type BlacklistType, type ItemKey } from './keys';
import { boundAsRead, parseLicense, type License } from './license.repo';
import { droppedClaims, renewal, takeAppending, takeDroppingEnded, takeFirst, type SeatExpression, type SeatWrite } from './seat-writes';
import { subscriptionSchema, type Subscription } from './subscription.repo';
import { teamSchema, type Team } from './team.repo';
import { usernameIndexSchema, type UsernameIndex } from './username.repo';

/** A request attribute to look up in an app's blacklist, already normalised. */
export interface BlacklistProbe {
  type: BlacklistType;
  value: string;
}

/** What one round trip of the client endpoints should fetch. */
export interface AuthReads {
  app?: string;
  team?: string;
  subscription?: string;
  /** A license key as a client of this app gave it; `teamId` (the app's owner) when the caller knows it. */
  license?: { key: string; appId: string; teamId?: string };
  login?: { appId: string; username: string };
  blacklist?: { appId: string; probes: BlacklistProbe[] };
}

export interface AuthItems {
  app?: App;
  team?: Team;
  subscription?: Subscription;
  license?: License;
  login?: UsernameIndex;
  /** The probes' types that have an entry, in the probes' order. */
  blacklisted: BlacklistType[];
}

/** The one write of a successful /auth; its conditions hold it to the license as the checks saw it. */
export interface Activation {
  license: License;
  now: string;
  /** Sets first_used_at and starts the clock: expires_at = now + initial_duration. */
  firstUse: boolean;
  bindHwid: string | undefined;
  /** The HWID the request sent: on a locked license, one of its bound HWIDs or the one to bind. */
  sentHwid: string | undefined;
  /** Under `single_key_per_hwid`: claim the device in the HWID index in the same transaction. */
  claimDevice: boolean;
  /** On a floating license: the lease this /auth writes (a renewal, or a seat taken when `bindHwid` is set). */
  seat?: SeatWrite;
}

export type ActivationOutcome =
  | { kind: 'activated'; license: License }
  /** Another request changed the license first: re-read it and decide again. */
  | { kind: 'license_changed' }
  | { kind: 'device_taken' };

/** Of the items a key may name, the license of this app (a custom key under its team wins). */
function appLicenseAmong(items: (Record<string, unknown> | undefined)[] | undefined, appId: string | undefined): License | undefined {
  const licenses = (items ?? []).flatMap((found) => (found ? [parseLicense(found)] : [])).filter((license) => license.app_id === appId);
  return licenses.at(-1);
}

const lostRace = (code: string | undefined) => code === 'ConditionalCheckFailed' || code === 'TransactionConflict';

/**
 * The reads and the write of the client endpoints' hot path (docs/performance.md, round trips): each
 * `read` is at most one BatchGetItem, with app, team and subscription served
 * from the cache when warm; licenses, the username index and blacklist entries
 * are always read, so a pause or a new blacklist entry takes effect at once.
 */
export function createAuthRepo(table: Table, cache: ItemCache) {
  const teamOfCachedApp = (appId: string): string | undefined => {
    const app = cache.get(keys.app(appId));
    return app && typeof app.team_id === 'string' ? app.team_id : undefined;
  };

  return {
    async read(wanted: AuthReads): Promise<AuthItems> {
      const hits = new Map<string, Record<string, unknown>>();
      const misses: ItemKey[] = [];
      const toCache: ItemKey[] = [];
      const want = (key: ItemKey, cacheable: boolean) => {
        const hit = cacheable ? cache.get(key) : undefined;
        if (hit) hits.set(itemId(key), hit);
        else {
          misses.push(key);
          if (cacheable) toCache.push(key);
        }
        return key;
      };
      const appKey = wanted.app === undefined ? undefined : want(keys.app(wanted.app), true);
      const teamKey = wanted.team === undefined ? undefined : want(keys.team(wanted.team), true);
      const subscriptionKey = wanted.subscription === undefined ? undefined : want(keys.subscription(wanted.subscription), true);
      // A custom key lives under the app's team; that item is read with the
      // others once the team is known (a warm container caches the app),
      // otherwise after this batch, and only when no license of the app was found.
      const licenseTeam = wanted.license && (wanted.license.teamId ?? teamOfCachedApp(wanted.license.appId));
      const licenseKeys = wanted.license && [
        want(keys.license(wanted.license.key), false),
        ...(licenseTeam === undefined ? [] : [want(keys.license(wanted.license.key, licenseTeam), false)]),
      ];
      const loginKey = wanted.login === undefined ? undefined : want(keys.username(wanted.login.appId, wanted.login.username), false);
      const probes = wanted.blacklist?.probes.map((probe) => ({
        type: probe.type,
        key: want(keys.blacklist(wanted.blacklist!.appId, probe.type, probe.value), false),
      }));

      const fetched = misses.length > 0 ? await batchGetItems(table, misses) : new Map<string, Record<string, unknown>>();
      for (const key of toCache) {
        const item = fetched.get(itemId(key));
        if (item) cache.set(key, item);
        else cache.setAbsent(key);
      }
      const item = (key: ItemKey | undefined) => (key ? (hits.get(itemId(key)) ?? fetched.get(itemId(key))) : undefined);
      const parsed = <T>(key: ItemKey | undefined, parse: (found: Record<string, unknown>) => T): T | undefined => {
        const found = item(key);
        return found ? parse(found) : undefined;
      };
      const app = parsed(appKey, (found) => appSchema.parse(found));
      let license = appLicenseAmong(licenseKeys?.map(item), wanted.license?.appId);
      if (wanted.license && !license && licenseTeam === undefined && app?.app_id === wanted.license.appId) {
        const scoped = keys.license(wanted.license.key, app.team_id);
        license = appLicenseAmong([(await batchGetItems(table, [scoped])).get(itemId(scoped))], app.app_id);
      }
      return {
        app,
        team: parsed(teamKey, (found) => teamSchema.parse(found)),
        subscription: parsed(subscriptionKey, (found) => subscriptionSchema.parse(found)),
        license,
        login: parsed(loginKey, (found) => usernameIndexSchema.parse(found)),
        blacklisted: (probes ?? []).filter((probe) => item(probe.key) !== undefined).map((probe) => probe.type),
      };
    },

    /**
     * The application as the cache holds it (a request's cache first holds what the request read), without a read:
     * null when this request read it and there is none, undefined when the cache cannot tell.
     */
    cachedApp(appId: string): App | null | undefined {
      const found = cache.get(keys.app(appId));
      if (found) return appSchema.parse(found);
      return cache.isAbsent(keys.app(appId)) ? null : undefined;
    },

    /** A strongly consistent read of a license as it stands now, for deciding again after a lost race. */
    async currentLicense(license: License): Promise<License | undefined> {
      const { Item } = await table.doc.send(new GetCommand({ TableName: table.name, Key: keys.licenseOf(license), ConsistentRead: true }));
      return Item ? parseLicense(Item) : undefined;
    },

    async activate(activation: Activation): Promise<ActivationOutcome> {
      const { license, now, firstUse, bindHwid, claimDevice, sentHwid, seat } = activation;
      const seatWrite = seat && seatExpression(license, seat, bindHwid);
      const hwids = seatWrite?.hwids ?? (bindHwid === undefined ? license.hwids : [...license.hwids, bindHwid]);
      const leases = seat ? { ...Object.fromEntries(hwids.flatMap((hwid) => (hasOwnEntry(license.leases, hwid) ? [[hwid, license.leases[hwid]!]] : []))), [seat.hwid]: seat.lease } : license.leases;
      const updated: License = {
        ...license,
        last_login: now,
        ...(firstUse ? { first_used_at: now, expires_at: addSeconds(now, license.initial_duration) } : {}),
        ...(bindHwid !== undefined ? { hwids, hwid: hwids[0]! } : {}),
        leases,
      };
      const sets = ['last_login = :now'];
      const conditions = ['attribute_exists(pk)', '#status = :active', 'hwid_lock = :lock'];
      const values: Record<string, unknown> = { ':now': now, ':active': 'active', ':lock': license.hwid_lock };
      if (firstUse) {
        sets.push('first_used_at = :now', 'expires_at = :expires');
        // expires_at is computed from the duration as read: an extension that
        // lands in between must make this write fail and be decided again.
        conditions.push('attribute_type(first_used_at, :null)', 'initial_duration = :duration');
        values[':expires'] = updated.expires_at;
        values[':null'] = 'NULL';
        values[':duration'] = license.initial_duration;
      }
      if (seatWrite?.replacesList) {
        // The list is replaced as a whole (seat-writes.ts): the other binding branches do not apply.
      } else if (bindHwid !== undefined && license.hwids.length === 0) {
        sets.push('hwid = :hwid', 'hwids = :hwids');
        conditions.push('(attribute_not_exists(hwid) OR attribute_type(hwid, :null))', '(attribute_not_exists(hwids) OR size(hwids) = :zero)');
        values[':hwid'] = bindHwid;
        values[':hwids'] = [bindHwid];
        values[':null'] = 'NULL';
        values[':zero'] = 0;
      } else if (bindHwid !== undefined) {
        // Another seat: concurrent binds append side by side, and the seat
        // count is a condition, so exactly max_devices of them get in.
        sets.push('hwids = list_append(hwids, :new)');
        conditions.push('size(hwids) < max_devices', 'NOT contains(hwids, :hwid)', 'hwid = :oldest');
        values[':new'] = [bindHwid];
        values[':hwid'] = bindHwid;
        values[':oldest'] = license.hwid;
      } else if (license.hwid_lock && sentHwid === license.hwid) {
        conditions.push('hwid = :bound');
        values[':bound'] = license.hwid;
      } else if (license.hwid_lock) {
        conditions.push('contains(hwids, :bound)');
        values[':bound'] = sentHwid;
      }
      const names: Record<string, string> = { '#status': 'status' };
      const removes: string[] = [];
      if (seatWrite) {
        sets.push(...seatWrite.sets);
        removes.push(...seatWrite.removes);
        conditions.push(...seatWrite.conditions);
        Object.assign(names, seatWrite.names);
        Object.assign(values, seatWrite.values);
      }
      const update = {
        TableName: table.name,
        Key: keys.licenseOf(license),
        UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      };

      // A later use only sets last_login under conditions it leaves true, so
      // a resent attempt passes them again. A first use or a binding fails its
      // own condition once applied and would answer USED_* or a mismatch to its
      // own retry: it goes through a transaction, whose token makes a resent
      // attempt succeed. That costs one extra write unit once per license.
      if (!firstUse && bindHwid === undefined) {
        try {
          await table.doc.send(new UpdateCommand(stampUpdate(table, update)));
          return { kind: 'activated', license: updated };
        } catch (error) {
          // A running transaction on the license (a management change) refuses the update: decide again on a fresh read.
          if (isConditionFailure(error) || (error instanceof Error && error.name === 'TransactionConflictException')) return { kind: 'license_changed' };
          throw error;
        }
      }

      const items: TransactItem[] = [{ Update: update }];
      if (claimDevice && bindHwid !== undefined) {
        // Right after the license: the cancellation reasons below are read by position.
        items.push({
          Put: {
            TableName: table.name,
            Item: hwidIndexItem({ app_id: license.app_id, hwid: bindHwid, license_key: license.key }),
            ConditionExpression: 'attribute_not_exists(pk) OR license_key = :key',
            ExpressionAttributeValues: { ':key': license.key },
          },
        });
      }
      if (claimDevice && seat) items.push(...droppedClaims(table.name, license, seat));
      try {
        await transactWrite(table, items, { retryCancellations: false });
        return { kind: 'activated', license: updated };
      } catch (error) {
        const codes = cancellationCodes(error);
        if (!codes) throw error;
        // The license first: if it changed, the device question may not arise any more.
        if (lostRace(codes[0])) return { kind: 'license_changed' };
        if (codes[1] === 'ConditionalCheckFailed') {
          // An item a release had no room for names a license that gave the device up: once removed, decide again.
          return bindHwid !== undefined && (await releaseStaleIndexItem(table, license, bindHwid, now)) ? { kind: 'license_changed' } : { kind: 'device_taken' };
        }
        if (codes.slice(1).some(lostRace)) return { kind: 'license_changed' };
        throw error;
      }
    },
  };
}

/**
 * The lease parts of a floating license's /auth write (seat-writes.ts): a
 * renewal, the first seat, a seat appended beside live ones, or a seat taken
 * while ended leases are dropped (the list then replaced as a whole, `hwids`
 * the list afterwards).
 */
function seatExpression(license: License, seat: SeatWrite, bindHwid: string | undefined): (SeatExpression & { hwids?: string[]; replacesList?: true }) | undefined {
  if (seat.held) return renewal({ ...seat, held: seat.held });
  if (bindHwid === undefined) return undefined;
  if (seat.dropped.length > 0) {
    const dropped = new Set(seat.dropped.map(({ hwid }) => hwid));
    const { hwids, ...expression } = takeDroppingEnded(seat, license.hwids.filter((hwid) => !dropped.has(hwid) && hwid !== seat.hwid));
    const bound = boundAsRead(license);
    return { ...expression, conditions: [...expression.conditions, bound.condition], values: { ...expression.values, ...bound.values }, hwids, replacesList: true };
  }
  return license.hwids.length === 0 ? takeFirst(seat) : takeAppending(seat);
}
