/**
 * The reads and the write of the client endpoints' hot path (docs/performance.md, round trips). Each
 * `read` is at most one BatchGetItem, with app, team and subscription served
 * from the cache when warm; licenses, the username index and blacklist entries
 * are always read, so a pause or a new blacklist entry takes effect at once.
 */
import type { CachedTable, ItemCache } from './item-cache';
import { addSeconds } from '#shared/clock';
import { hasOwnEntry } from '#shared/own-keys';
import { appSchema, type App } from './model/app';
import { batchGetItems, itemId } from './batch-get';
import { conditional, getItem, transactWrite, updateItem, type Table, type TransactItem } from './db';
import { condition, conditions, part, Update, type ExpressionPart } from './expressions';
import { hwidIndexItem } from './items';
import { releaseStaleIndexItem } from './hwid-overflow';
import { keys, type ItemKey } from './keys';
import type { BlacklistProbe, BlacklistType } from './model/blacklist';
import { parseLicense, type License } from './model/license';
import type { SeatWrite } from './model/lease';
import { fileMap, storedFile, type FileWrite, type LicenseFileEntry } from './model/license-file';
import { droppedClaims, renewal, takeAppending, takeDroppingEnded, takeFirst, type SeatExpression } from './seat-writes';
import { subscriptionSchema, type Subscription } from './model/subscription';
import { teamSchema, type Team } from './model/team';
import { trialClaimSchema, type TrialClaim } from './model/trial';
import { usernameIndexSchema, type UsernameIndex } from './model/username';

/** What one round trip of the client endpoints should fetch. */
export interface AuthReads {
  app?: string;
  team?: string;
  subscription?: string;
  /** A license key as a client of this app gave it; `teamId` (the app's owner) when the caller knows it. */
  license?: { key: string; appId: string; teamId?: string };
  login?: { appId: string; username: string };
  blacklist?: { appId: string; probes: BlacklistProbe[] };
  /** A device's trial claim (POST /trial). */
  trialClaim?: { appId: string; hwid: string };
  /** A device's trial license by the key its application names it with (POST /trial): a generated key, never a custom one. */
  trialLicense?: { key: string; appId: string };
}

export interface AuthItems {
  app?: App;
  team?: Team;
  subscription?: Subscription;
  license?: License;
  login?: UsernameIndex;
  /** The probes' types that have an entry, in the probes' order. */
  blacklisted: BlacklistType[];
  trialClaim?: TrialClaim;
  trialLicense?: License;
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
  /** A license file made by this check (/license-file): recorded by the same write. */
  file?: FileWrite;
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

/** The app's team as a warm Lambda's cache holds it, without a read. */
function teamOfCachedApp(cache: ItemCache, appId: string): string | undefined {
  const app = cache.get(keys.app(appId));
  return app && typeof app.team_id === 'string' ? app.team_id : undefined;
}

const lostRace = (code: string | undefined) => code === 'ConditionalCheckFailed' || code === 'TransactionConflict';

/** What the activation write holds the license to: the state the checks of /auth saw (docs/client-api.md#check-order). */
const licenseIs = {
  active: part('#status = :active', { ':active': 'active' }, { '#status': 'status' }),
  lockedAsRead: (license: License) => part('hwid_lock = :lock', { ':lock': license.hwid_lock }),
  unused: part('attribute_type(first_used_at, :null)', { ':null': 'NULL' }),
  ofDurationAsRead: (license: License) => part('initial_duration = :duration', { ':duration': license.initial_duration }),
  unbound: part('(attribute_not_exists(hwid) OR attribute_type(hwid, :null)) AND (attribute_not_exists(hwids) OR size(hwids) = :zero)', { ':null': 'NULL', ':zero': 0 }),
  /** A seat left, the device not listed yet, and the first device the one read. */
  seatFreeFor: (hwid: string, license: License) => [
    part('size(hwids) < max_devices'),
    part('NOT contains(hwids, :hwid)', { ':hwid': hwid }),
    part('hwid = :oldest', { ':oldest': license.hwid }),
  ],
  boundTo: (hwid: string | null) => part('hwid = :bound', { ':bound': hwid }),
  listing: (hwid: string | undefined) => part('contains(hwids, :bound)', { ':bound': hwid }),
};

/** The items one round trip of the client endpoints asks for, from the cache where it may. */
export async function read(store: CachedTable, wanted: AuthReads): Promise<AuthItems> {
  const { table, cache } = store;
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
  const licenseTeam = wanted.license && (wanted.license.teamId ?? teamOfCachedApp(cache, wanted.license.appId));
  const licenseKeys = wanted.license && [
    want(keys.license(wanted.license.key), false),
    ...(licenseTeam === undefined ? [] : [want(keys.license(wanted.license.key, licenseTeam), false)]),
  ];
  const loginKey = wanted.login === undefined ? undefined : want(keys.username(wanted.login.appId, wanted.login.username), false);
  const claimKey = wanted.trialClaim === undefined ? undefined : want(keys.trialClaim(wanted.trialClaim.appId, wanted.trialClaim.hwid), false);
  const trialLicenseKey = wanted.trialLicense === undefined ? undefined : want(keys.license(wanted.trialLicense.key), false);
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
    trialClaim: parsed(claimKey, (found) => trialClaimSchema.parse(found)),
    trialLicense: appLicenseAmong([item(trialLicenseKey)], wanted.trialLicense?.appId),
  };
}

/**
 * The application as the cache holds it (a request's cache first holds what the request read), without a read:
 * null when this request read it and there is none, undefined when the cache cannot tell.
 */
export function cachedApp(store: CachedTable, appId: string): App | null | undefined {
  const found = store.cache.get(keys.app(appId));
  if (found) return appSchema.parse(found);
  return store.cache.isAbsent(keys.app(appId)) ? null : undefined;
}

/** A strongly consistent read of a license as it stands now, for deciding again after a lost race. */
export async function currentLicense(table: Table, license: Pick<License, 'key' | 'team_id' | 'key_scope'>): Promise<License | undefined> {
  const item = await getItem(table, keys.licenseOf(license), { consistentRead: true });
  return item ? parseLicense(item) : undefined;
}

export async function activate(table: Table, activation: Activation): Promise<ActivationOutcome> {
  const { license, now, firstUse, bindHwid, claimDevice, sentHwid, seat, file } = activation;
  const seatWrite = seat && seatExpression(license, seat, bindHwid);
  const hwids = seatWrite?.hwids ?? (bindHwid === undefined ? license.hwids : [...license.hwids, bindHwid]);
  const leases = seat ? { ...Object.fromEntries(hwids.flatMap((hwid) => (hasOwnEntry(license.leases, hwid) ? [[hwid, license.leases[hwid]!]] : []))), [seat.hwid]: seat.lease } : license.leases;
  const updated: License = {
    ...license,
    last_login: now,
    ...(firstUse ? { first_used_at: now, expires_at: addSeconds(now, license.initial_duration) } : {}),
    ...(bindHwid !== undefined ? { hwids, hwid: hwids[0]! } : {}),
    leases,
    ...(file ? { files: filesAfter(license, file) } : {}),
  };
  const write = new Update().set(part('last_login = :now', { ':now': now })).when(conditions.exists, licenseIs.active, licenseIs.lockedAsRead(license));
  // expires_at is computed from the duration as read: an extension that
  // lands in between must make this write fail and be decided again.
  if (firstUse) write.set(part('first_used_at = :now', { ':now': now }), part('expires_at = :expires', { ':expires': updated.expires_at })).when(licenseIs.unused, licenseIs.ofDurationAsRead(license));
  if (seatWrite?.replacesList) {
    // The list is replaced as a whole (seat-writes.ts): the other binding branches do not apply.
  } else if (bindHwid !== undefined && license.hwids.length === 0) {
    write.set(part('hwid = :hwid', { ':hwid': bindHwid }), part('hwids = :hwids', { ':hwids': [bindHwid] })).when(licenseIs.unbound);
  } else if (bindHwid !== undefined) {
    // Another seat: concurrent binds append side by side, and the seat
    // count is a condition, so exactly max_devices of them get in.
    write.set(part('hwids = list_append(hwids, :new)', { ':new': [bindHwid] })).when(...licenseIs.seatFreeFor(bindHwid, license));
  } else if (license.hwid_lock && sentHwid === license.hwid) {
    write.when(licenseIs.boundTo(license.hwid));
  } else if (license.hwid_lock) {
    write.when(licenseIs.listing(sentHwid));
  }
  if (seatWrite) write.set(...seatWrite.sets).remove(...seatWrite.removes).when(...seatWrite.conditions);
  if (file) {
    const { sets, removes, conditions: held } = fileExpression(license, file);
    write.set(...sets).remove(...removes).when(...held);
  }
  const key = keys.licenseOf(license);

  // A later use only sets last_login under conditions it leaves true, so
  // a resent attempt passes them again. A first use or a binding fails its
  // own condition once applied and would answer USED_* or a mismatch to its
  // own retry: it goes through a transaction, whose token makes a resent
  // attempt succeed. That costs one extra write unit once per license.
  if (!firstUse && bindHwid === undefined) {
    // A running transaction on the license (a management change) refuses the update: decide again on a fresh read.
    const written = await conditional(updateItem(table, key, write.input()), 'race');
    return written.held ? { kind: 'activated', license: updated } : { kind: 'license_changed' };
  }

  const items: TransactItem[] = [{ Update: { TableName: table.name, Key: key, ...write.input() } }];
  if (claimDevice && bindHwid !== undefined) {
    // Right after the license: the cancellation reasons below are read by position.
    items.push({ Put: { TableName: table.name, Item: hwidIndexItem({ app_id: license.app_id, hwid: bindHwid, license_key: license.key }), ...condition(conditions.freeOrHeldBy(license.key)) } });
  }
  if (claimDevice && seat) items.push(...droppedClaims(table.name, license, seat));
  const written = await conditional(transactWrite(table, items, { retryCancellations: false }), 'race');
  if (written.held) return { kind: 'activated', license: updated };
  const [ofLicense, ofDevice] = written.reasons;
  // The license first: if it changed, the device question may not arise any more.
  if (lostRace(ofLicense)) return { kind: 'license_changed' };
  if (ofDevice === 'ConditionalCheckFailed') {
    // An item a release had no room for names a license that gave the device up: once removed, decide again.
    return bindHwid !== undefined && (await releaseStaleIndexItem(table, license, bindHwid, now)) ? { kind: 'license_changed' } : { kind: 'device_taken' };
  }
  // A race lost on a dropped device's index item: decide again.
  return { kind: 'license_changed' };
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
    return { ...expression, conditions: [...expression.conditions, conditions.boundAsRead(license)], hwids, replacesList: true };
  }
  return license.hwids.length === 0 ? takeFirst(seat) : takeAppending(seat);
}

/** The license's files after a new one: those as read, less the ones the write drops, and the new one (a null-prototype map, keyed by `jti`). */
function filesAfter(license: License, file: FileWrite): Record<string, LicenseFileEntry> {
  const kept = Object.entries(license.files ?? {}).filter(([jti]) => !file.dropped.includes(jti));
  return fileMap([...kept, [file.jti, file.file]]);
}

/**
 * The parts of the /auth write that record a license file (model/license-file.ts). On an item
 * that has its `files` map the entry is set in place and the dropped ones
 * removed; a resent attempt sets and removes the same again. An item without
 * one gets the map whole, on condition that it still has none or holds only
 * this file (a resent attempt), so two first files never overwrite each other.
 */
function fileExpression(license: License, file: FileWrite): { sets: ExpressionPart[]; removes: ExpressionPart[]; conditions: ExpressionPart[] } {
  const jti = { '#fileJti': file.jti };
  if (license.files === undefined) {
    return {
      sets: [part('files = :files', { ':files': { [file.jti]: storedFile(file.file) } })],
      removes: [],
      conditions: [part('(attribute_not_exists(files) OR (attribute_exists(files.#fileJti) AND size(files) = :oneFile))', { ':oneFile': 1 }, jti)],
    };
  }
  return {
    sets: [part('files.#fileJti = :file', { ':file': storedFile(file.file) }, jti)],
    removes: file.dropped.map((dropped, index) => part(`files.#droppedFile${index}`, {}, { [`#droppedFile${index}`]: dropped })),
    conditions: [part('attribute_exists(files)')],
  };
}
