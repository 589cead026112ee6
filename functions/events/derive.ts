import { isDeepStrictEqual } from 'node:util';
import { appSecretFields, appSettingsFields } from '#data/model/app';
import { actorAttribute } from '#data/db';
import { lookupChanges } from '#data/lookup.repo';
import { boundDevicesOf, type EntryChange } from '#data/model/lookup';
import { standingChange } from '#data/events.repo';
import { standingOf, type Addition } from '#data/model/stats';
import type { AuditEvent } from '#data/model/audit';
import { keys } from '#data/keys';
import { tableDefinition } from '#data/table';
import { isCounterAttribute } from '#data/model/usage';
import { valueFingerprint } from '#core/logger';
import { convertedTag, trialTag } from '#data/model/trial';
import { storedFileSchema, type StoredFile } from '#data/model/license-file';

export const eventTypes = [
  'license.created',
  'license.activated',
  'license.extended',
  'license.status_changed',
  'license.deleted',
  'license.hwid_bound',
  'license.hwid_reset',
  'license.credentials_changed',
  'license.metadata_changed',
  'license.seat_taken',
  'license.seat_released',
  'license.usage_limit_reached',
  'license.usage_reset',
  'license.file_issued',
  'license.file_returned',
  'license.trial_started',
  'license.trial_converted',
  'subscription.created',
  'subscription.changed',
  'subscription.deleted',
  'blacklist.added',
  'blacklist.deleted',
  'app.created',
  'app.updated',
  'app.settings_changed',
  'app.signing_key_rotated',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_rotated',
  'webhook.disabled',
  'stripe.connected',
  'stripe.changed',
  'stripe.disconnected',
  'portal.signed_in',
] as const;
export type EventType = (typeof eventTypes)[number];

/** What the bus carries and the audit log keeps (docs/events.md). */
export interface ServiceEvent extends AuditEvent {
  type: EventType;
}

/** One stream record, unmarshalled: the Lambda's event and DynamoDB Local's Streams API both become this. */
export interface StreamChange {
  /** The stream's id of the record: the same on every redelivery. */
  eventId: string;
  sequenceNumber: string;
  kind: 'INSERT' | 'MODIFY' | 'REMOVE';
  /** When DynamoDB made the change (epoch milliseconds). */
  at: number;
  keys: Record<string, unknown>;
  oldImage?: Record<string, unknown>;
  newImage?: Record<string, unknown>;
}

export type DailyCounter = 'created' | 'activated' | 'logins';

/** What a change adds to the daily counters of /app/stats. */
export interface CountedChange {
  appId: string;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  counter: DailyCounter;
}

export interface Effects {
  events: ServiceEvent[];
  counts: CountedChange[];
  /** A license's move in its app's totals and expiry counts (licenses only). */
  additions?: Addition[];
  /** The lookup entries a license change puts or deletes (data/lookup.repo.ts). */
  lookups?: EntryChange[];
}

const none: Effects = { events: [], counts: [] };

export const dayOf = (isoTime: string): string => isoTime.slice(0, 10);

/** Attributes that are the table's bookkeeping, not the entity's data. */
const bookkeeping = new Set<string>([
  tableDefinition.partitionKey,
  tableDefinition.sortKey,
  tableDefinition.timeToLiveAttribute,
  ...tableDefinition.globalSecondaryIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  actorAttribute,
  'key_scope',
]);

/** Secrets never leave the table: no password, hash, private key or other secret, whatever the entity. */
const secret = /password|hash|private|secret/i;

/** An image as events show it: the entity's own fields, without bookkeeping or secrets. */
export function publicImage(image: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!image) return undefined;
  return Object.fromEntries(Object.entries(image).filter(([name]) => !bookkeeping.has(name) && !secret.test(name)));
}

/** The fields that differ, bookkeeping left out: a write that only stamped the actor changed nothing. */
function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): Set<string> {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return new Set([...names].filter((name) => !bookkeeping.has(name) && !isDeepStrictEqual(before[name], after[name])));
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** A license whose seats are leases (docs/licensing-models.md, "Floating seats"): its devices come and go as seats. */
const leasing = (license: Record<string, unknown>): boolean => typeof license.lease_seconds === 'number';

function leaseEnds(license: Record<string, unknown>): Map<string, number> {
  // A stored lease is its end in epoch milliseconds, negated when borrowed (data/model/lease.ts).
  const leases = (license.leases ?? {}) as Record<string, unknown>;
  return new Map(Object.entries(leases).map(([hwid, lease]) => [hwid, Math.abs(Number(lease))]));
}

/**
 * A seat taken: a device has a lease it did not have, or whose lease had
 * ended when this write was made; a seat released: a lease is gone (given up,
 * removed by the owner, or dropped once ended). A renewal is neither.
 */
function seatEvents(before: Record<string, unknown>, after: Record<string, unknown>, at: number): EventType[] {
  const [had, has] = [leaseEnds(before), leaseEnds(after)];
  const types: EventType[] = [];
  if ([...has.keys()].some((hwid) => !had.has(hwid) || had.get(hwid)! <= at)) types.push('license.seat_taken');
  if ([...had.keys()].some((hwid) => !has.has(hwid))) types.push('license.seat_released');
  return types;
}

/** Fields whose changes have an event type of their own, or none (last_login is counted, not announced). */
const announcedLicenseFields = new Set([
  'first_used_at',
  'expires_at',
  'initial_duration',
  'status',
  'hwid',
  'hwids',
  'last_hwid_reset_at',
  'username',
  'last_login',
  'leases',
  'files',
]);

function licenseEffects(change: StreamChange, event: EventOf): Effects {
  const effects = licenseEvents(change, event);
  const additions = standingChange(standingOf(change.oldImage), standingOf(change.newImage));
  const lookups = lookupChanges(change.oldImage, change.newImage);
  return { ...effects, ...(additions.length > 0 ? { additions } : {}), ...(lookups.length > 0 ? { lookups } : {}) };
}

function licenseEvents(change: StreamChange, event: EventOf): Effects {
  const before = change.oldImage;
  const after = change.newImage;
  const image = after ?? before;
  const appId = text(image?.app_id);
  const licenseKey = text(image?.key);
  if (!image || appId === undefined || licenseKey === undefined) return none;
  const emit = (type: EventType) => event(type, appId, licenseKey);

  if (change.kind === 'INSERT' && after) {
    const createdAt = text(after.created_at);
    // A trial is made in use (docs/client-api.md#post-trial): its start is its activation too.
    const started = isTrial(after) && text(after.first_used_at) !== undefined;
    return {
      events: [emit('license.created'), ...(started ? [emit('license.trial_started'), emit('license.activated')] : [])],
      counts: [...(createdAt ? [{ appId, day: dayOf(createdAt), counter: 'created' as const }] : []), ...(started ? [{ appId, day: dayOf(String(after.first_used_at)), counter: 'activated' as const }] : [])],
    };
  }
  if (change.kind === 'REMOVE') return { events: [emit('license.deleted')], counts: [] };
  if (!before || !after) return none;

  const changed = changedFields(before, after);
  const events: ServiceEvent[] = [];
  const counts: CountedChange[] = [];
  const activated = before.first_used_at == null && after.first_used_at != null;
  if (activated) {
    events.push(emit('license.activated'));
    counts.push({ appId, day: dayOf(String(after.first_used_at)), counter: 'activated' });
  }
  const lastLogin = text(after.last_login);
  if (changed.has('last_login') && lastLogin !== undefined) counts.push({ appId, day: dayOf(lastLogin), counter: 'logins' });
  // A first use sets expires_at from the duration: that is the activation, not an extension.
  if (changed.has('initial_duration') || (changed.has('expires_at') && !activated)) events.push(emit('license.extended'));
  if (changed.has('status')) events.push(emit('license.status_changed'));
  if (leasing(before) && leasing(after)) events.push(...seatEvents(before, after, change.at).map(emit));
  else {
    const [had, has] = [boundDevicesOf(before), boundDevicesOf(after)];
    if (has.some((hwid) => !had.includes(hwid))) events.push(emit('license.hwid_bound'));
    else if (had.some((hwid) => !has.includes(hwid)) || changed.has('last_hwid_reset_at')) events.push(emit('license.hwid_reset'));
  }
  if (leasing(before) && leasing(after) && changed.has('last_hwid_reset_at')) events.push(emit('license.hwid_reset'));
  if (changed.has('username')) events.push(emit('license.credentials_changed'));
  if (isTrial(before) && !isTrial(after) && tagsOf(after).includes(convertedTag)) events.push(emit('license.trial_converted'));
  // The list of types is binding and names no other change: settings (subscription, tags, HWID rules, seats) go with metadata.
  if ([...changed].some((field) => !announcedLicenseFields.has(field) && !isCounterAttribute(field))) events.push(emit('license.metadata_changed'));
  events.push(...usageEvents(before, after, [...changed].filter(isCounterAttribute)).map(emit));
  if (changed.has('files')) events.push(...fileEvents(before, after, change.at, (type, file) => event(type, appId, licenseKey, { after: file })));
  return { events, counts };
}

/** A license's files as the item stores them (storedFileSchema): by `jti`, times in epoch seconds. */
function storedFiles(license: Record<string, unknown>): Map<string, StoredFile> {
  const files = (license.files ?? {}) as Record<string, unknown>;
  return new Map(
    Object.entries(files).flatMap(([jti, file]) => {
      const parsed = storedFileSchema.safeParse(file);
      return parsed.success ? [[jti, parsed.data] as const] : [];
    }),
  );
}

/**
 * A file issued: a `jti` the license did not list. A file returned: a live one gone while
 * no new file of its device came (a device's new file drops its earlier one, and the next
 * file drops ended ones: neither is a return). Events show the device by its fingerprint.
 */
function fileEvents(before: Record<string, unknown>, after: Record<string, unknown>, at: number, emit: (type: EventType, file: Record<string, unknown>) => ServiceEvent): ServiceEvent[] {
  const [had, has] = [storedFiles(before), storedFiles(after)];
  const shown = (jti: string, file: StoredFile) => ({ jti, hwid: valueFingerprint(file.hwid), air_gapped: file.air_gapped, exp: file.exp });
  const issued = [...has].filter(([jti]) => !had.has(jti));
  const returned = [...had].filter(([jti, file]) => !has.has(jti) && file.exp * 1000 > at && !issued.some(([, made]) => made.hwid === file.hwid));
  return [...issued.map(([jti, file]) => emit('license.file_issued', shown(jti, file))), ...returned.map(([jti, file]) => emit('license.file_returned', shown(jti, file)))];
}
const tagsOf = (license: Record<string, unknown>): unknown[] => (Array.isArray(license.tags) ? license.tags : []);
const isTrial = (license: Record<string, unknown>): boolean => tagsOf(license).includes(trialTag);

const limitReachedAt = (counter: unknown): unknown => (typeof counter === 'object' && counter !== null ? (counter as Record<string, unknown>).limit_reached_at : undefined);

/**
 * Counting is no event; the first refusal of a period marks its counter
 * (`limit_reached_at`), and a reset removes counters: one event each per change.
 */
function usageEvents(before: Record<string, unknown>, after: Record<string, unknown>, counters: string[]): EventType[] {
  const reached = counters.some((name) => limitReachedAt(after[name]) !== undefined && limitReachedAt(after[name]) !== limitReachedAt(before[name]));
  const reset = counters.some((name) => before[name] !== undefined && after[name] === undefined);
  return [...(reached ? (['license.usage_limit_reached'] as const) : []), ...(reset ? (['license.usage_reset'] as const) : [])];
}

/**
 * A password set for the same username changes only the username index item:
 * that is the license's credentials changing. Renames show on the license
 * itself, so index items that come and go are no event of their own.
 */
function usernameEffects(change: StreamChange, appId: string, event: EventOf): Effects {
  const { oldImage: before, newImage: after } = change;
  if (change.kind !== 'MODIFY' || !before || !after) return none;
  const licenseKey = text(after.license_key);
  if (licenseKey === undefined || before.license_key !== licenseKey || before.username !== after.username) return none;
  if (isDeepStrictEqual(before.password_hash, after.password_hash)) return none;
  return { events: [event('license.credentials_changed', appId, licenseKey)], counts: [] };
}

function subscriptionEffects(change: StreamChange, subscriptionId: string, event: EventOf): Effects {
  const appId = text((change.newImage ?? change.oldImage)?.app_id);
  if (appId === undefined) return none;
  if (change.kind === 'INSERT') return { events: [event('subscription.created', appId, subscriptionId)], counts: [] };
  if (change.kind === 'REMOVE') return { events: [event('subscription.deleted', appId, subscriptionId)], counts: [] };
  if (changedFields(change.oldImage ?? {}, change.newImage ?? {}).size === 0) return none;
  return { events: [event('subscription.changed', appId, subscriptionId)], counts: [] };
}

function blacklistEffects(change: StreamChange, appId: string, event: EventOf): Effects {
  const image = change.newImage ?? change.oldImage;
  const subject = `${String(image?.type)}:${String(image?.value)}`;
  if (change.kind === 'REMOVE') return { events: [event('blacklist.deleted', appId, subject)], counts: [] };
  // Adding an entry again (a new reason) is announced as an addition; a write that changed nothing is not.
  if (change.kind === 'MODIFY' && changedFields(change.oldImage ?? {}, change.newImage ?? {}).size === 0) return none;
  return { events: [event('blacklist.added', appId, subject)], counts: [] };
}

type Images = { before?: Record<string, unknown>; after?: Record<string, unknown> };

/** Makes an event of the change; `images` replace the entity's public images where those would say too much. */
type EventOf = (type: EventType, appId: string, subject: string, images?: Images) => ServiceEvent;

const signingKeyId = (app: Record<string, unknown>): string | null => text((app.signing_key as Record<string, unknown> | undefined)?.key_id) ?? null;

/** An application's settings, each null while unset (the default applies). */
const appSettings = (app: Record<string, unknown>) => Object.fromEntries(appSettingsFields.map((field) => [field, app[field] ?? null]));

/**
 * An application as its events show it: its own fields and settings, and of
 * its signing key only the id. The stored key holds the private key's
 * ciphertext, which no event may carry, encrypted or not.
 */
function appView(app: Record<string, unknown>): Record<string, unknown> {
  const { signing_key: _key, ...fields } = publicImage(app)!;
  return { ...fields, ...appSettings(app), signing_key_id: signingKeyId(app) };
}

/**
 * Applications are made and changed by `/app/create`, `/app/update`,
 * `/app/settings` and the admin CLI (create, rename, status); their keys are
 * rotated by `/app/rotate-signing-key` and the CLI. The first key of an
 * application made before signing existed is made on its first need: no
 * owner's change, no event. Applications are never deleted.
 */
const appSecrets = new Set<string>(appSecretFields);

function appEffects(change: StreamChange, appId: string, event: EventOf): Effects {
  const { oldImage: before, newImage: after } = change;
  if (change.kind === 'INSERT' && after) return { events: [event('app.created', appId, appId, { after: appView(after) })], counts: [] };
  if (change.kind !== 'MODIFY' || !before || !after) return none;
  const changed = changedFields(before, after);
  const settings = new Set<string>(appSettingsFields);
  const events: ServiceEvent[] = [];
  // A secret is written with the setting that first needs it (the portal's, the trials'), and is never shown.
  if ([...changed].some((field) => !settings.has(field) && field !== 'signing_key' && !appSecrets.has(field))) {
    events.push(event('app.updated', appId, appId, { before: appView(before), after: appView(after) }));
  }
  if ([...changed].some((field) => settings.has(field))) {
    events.push(event('app.settings_changed', appId, appId, { before: appSettings(before), after: appSettings(after) }));
  }
  const [oldKey, newKey] = [signingKeyId(before), signingKeyId(after)];
  if (oldKey !== null && oldKey !== newKey) {
    events.push(event('app.signing_key_rotated', appId, appId, { before: { key_id: oldKey }, after: { key_id: newKey } }));
  }
  return { events, counts: [] };
}

/** An endpoint as its events show it: what /webhook/list shows, never its secret nor the delivery function's bookkeeping. */
function webhookView(webhook: Record<string, unknown>): Record<string, unknown> {
  const fields = ['webhook_id', 'url', 'events', 'description', 'enabled', 'created_at'];
  return Object.fromEntries(fields.map((field) => [field, webhook[field] ?? null]));
}

/**
 * Endpoints are made, changed, rotated and deleted by their owner; the
 * delivery function counts their failures (no event) and may disable one
 * (`disabled_reason` set with `enabled` false): `webhook.disabled`.
 */
function webhookEffects(change: StreamChange, webhookId: string, event: EventOf): Effects {
  const { oldImage: before, newImage: after } = change;
  const appId = text((after ?? before)?.app_id);
  if (appId === undefined) return none;
  if (change.kind === 'INSERT' && after) return { events: [event('webhook.created', appId, webhookId, { after: webhookView(after) })], counts: [] };
  if (change.kind === 'REMOVE' && before) return { events: [event('webhook.deleted', appId, webhookId, { before: webhookView(before) })], counts: [] };
  if (!before || !after) return none;
  const images = { before: webhookView(before), after: webhookView(after) };
  const events: ServiceEvent[] = [];
  if (before.enabled === true && after.enabled === false && after.disabled_reason !== undefined) {
    events.push(event('webhook.disabled', appId, webhookId, { before: images.before, after: { ...images.after, disabled_reason: after.disabled_reason } }));
  } else if (!isDeepStrictEqual(images.before, images.after)) events.push(event('webhook.updated', appId, webhookId, images));
  if (before.secret_ciphertext !== after.secret_ciphertext) events.push(event('webhook.secret_rotated', appId, webhookId, { after: images.after }));
  return { events, counts: [] };
}

/**
 * An application's Stripe connection as its events show it: its price map and
 * times. Its secrets never, encrypted or not, nor their hint.
 */
function stripeView(connection: Record<string, unknown>): Record<string, unknown> {
  return { prices: connection.prices, created_at: connection.created_at, updated_at: connection.updated_at };
}

/** Connecting, changing (a new secret, key or price map) and disconnecting an application's Stripe connection. */
function stripeEffects(change: StreamChange, appId: string, event: EventOf): Effects {
  const { oldImage: before, newImage: after } = change;
  if (change.kind === 'INSERT' && after) return { events: [event('stripe.connected', appId, appId, { after: stripeView(after) })], counts: [] };
  if (change.kind === 'REMOVE' && before) return { events: [event('stripe.disconnected', appId, appId, { before: stripeView(before) })], counts: [] };
  if (!before || !after || changedFields(before, after).size === 0) return none;
  return { events: [event('stripe.changed', appId, appId, { before: stripeView(before), after: stripeView(after) })], counts: [] };
}

/**
 * A customer signed in to the portal: the session's item is new. Its address never shows, only
 * its keyed fingerprint, the event's subject; the session's end and removal announce nothing.
 */
function portalSessionEffects(change: StreamChange, event: EventOf): Effects {
  const after = change.newImage;
  const appId = text(after?.app_id);
  const fingerprint = text(after?.email_fingerprint);
  if (change.kind !== 'INSERT' || appId === undefined || fingerprint === undefined) return none;
  const expiresAt = typeof after!.expires_at === 'number' ? new Date(after!.expires_at * 1000).toISOString() : null;
  return { events: [event('portal.signed_in', appId, fingerprint, { after: { email_fingerprint: fingerprint, expires_at: expiresAt } })], counts: [] };
}

/**
 * The events a change announces and what it adds to the daily counters.
 * Ids derive from the stream record's id, so a redelivered record yields the
 * same events (subscribers can drop repeats by `id`). Days come from the
 * item's own times, not from when the stream delivered the change.
 */
export function effectsOf(change: StreamChange): Effects {
  const entity = keys.entityOf(change.keys);
  if (!entity) return none;
  const at = new Date(change.at).toISOString();
  const before = publicImage(change.oldImage);
  const after = publicImage(change.newImage);
  const actor = text((change.kind === 'REMOVE' ? change.oldImage : change.newImage)?.[actorAttribute]) ?? 'admin';
  let index = 0;
  const event: EventOf = (type, appId, subject, images = { before, after }) => ({
    id: `${change.eventId}-${index++}`,
    type,
    app_id: appId,
    subject,
    at,
    actor,
    ...(images.before ? { before: images.before } : {}),
    ...(images.after ? { after: images.after } : {}),
  });
  switch (entity.kind) {
    case 'app':
      return appEffects(change, entity.id, event);
    case 'license':
      return licenseEffects(change, event);
    case 'username':
      return usernameEffects(change, entity.appId, event);
    case 'subscription':
      return subscriptionEffects(change, entity.id, event);
    case 'blacklist':
      return blacklistEffects(change, entity.appId, event);
    case 'webhook':
      return webhookEffects(change, entity.id, event);
    case 'stripe':
      return stripeEffects(change, entity.appId, event);
    case 'portalSession':
      return portalSessionEffects(change, event);
  }
}
