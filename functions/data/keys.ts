/**
 * Every key string of the table is built here and nowhere else.
 * Layout: entities live under their own partition; everything that
 * belongs to one application (HWID index, username index, blacklist) lives in
 * the application's partition so the /auth hot path can fetch it in one batch.
 */
import type { BlacklistType } from './model/blacklist';

export interface ItemKey {
  pk: string;
  sk: string;
}

export interface Gsi1Key {
  gsi1pk: string;
  gsi1sk: string;
}

/** A license's entry in the per-app listing index (`gsi2`, data/table.ts). */
export interface Gsi2Key {
  gsi2pk: string;
  gsi2sk: string;
}

export type ExpiryLevel = 'D' | 'H' | 'M' | 'T';

export const keys = {
  team: (teamId: string): ItemKey => ({ pk: `TEAM#${teamId}`, sk: 'TEAM' }),

  apiKey: (keyHash: string): ItemKey => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' }),
  /** A team's API keys, in creation order: the key's id, never its hash, names it in the index. */
  apiKeyByTeam: (teamId: string, createdAt: string, keyId: string): Gsi1Key => ({
    gsi1pk: `TEAM#${teamId}#APIKEYS`,
    gsi1sk: `${createdAt}#${keyId}`,
  }),
  apiKeysOfTeam: (teamId: string): string => `TEAM#${teamId}#APIKEYS`,

  app: (appId: string): ItemKey => ({ pk: `APP#${appId}`, sk: 'APP' }),
  /** Applications of a team, in creation order. */
  appByTeam: (teamId: string, createdAt: string, appId: string): Gsi1Key => ({
    gsi1pk: `TEAM#${teamId}#APPS`,
    gsi1sk: `${createdAt}#${appId}`,
  }),
  appsOfTeam: (teamId: string): string => `TEAM#${teamId}#APPS`,

  subscription: (subscriptionId: string): ItemKey => ({ pk: `SUB#${subscriptionId}`, sk: 'SUB' }),
  /** Subscriptions of an app, in creation order. */
  subscriptionByApp: (appId: string, createdAt: string, subscriptionId: string): Gsi1Key => ({
    gsi1pk: `APP#${appId}#SUBS`,
    gsi1sk: `${createdAt}#${subscriptionId}`,
  }),
  subscriptionsOfApp: (appId: string): string => `APP#${appId}#SUBS`,

  /**
   * A license's item. Generated keys (and custom keys made before custom keys
   * were scoped) live in one namespace shared by all owners: a random key
   * cannot collide. A custom key lives under its owner's team, so an owner
   * choosing a key learns nothing about other owners' keys, and two owners may
   * both use `ACME-PRO`. `/` is no key character, so the forms never meet.
   */
  license: (licenseKey: string, ownerTeamId?: string): ItemKey => ({
    pk: ownerTeamId === undefined ? `LIC#${licenseKey}` : `LIC#${ownerTeamId}/${licenseKey}`,
    sk: 'LIC',
  }),
  /** The items a key given by an owner (or a client of one of the team's apps) may live in: shared first. */
  licenseCandidates: (licenseKey: string, teamId: string): [ItemKey, ItemKey] => [keys.license(licenseKey), keys.license(licenseKey, teamId)],
  /** The item of a license as read: under its team when it was created with a custom key. */
  licenseOf: (license: { key: string; team_id: string; key_scope?: 'team' }): ItemKey =>
    keys.license(license.key, license.key_scope === 'team' ? license.team_id : undefined),
  /** Licenses of an app sorted by created_at; the key breaks ties between equal timestamps. */
  licenseByApp: (appId: string, createdAt: string, licenseKey: string): Gsi2Key => ({
    gsi2pk: `APP#${appId}#LICS`,
    gsi2sk: `${createdAt}#${licenseKey}`,
  }),
  licensesOfApp: (appId: string): string => `APP#${appId}#LICS`,
  /**
   * The created_at and key a license's `licenseByApp` entry was built from, read
   * back from its keys: a query's LastEvaluatedKey carries keys only, and a
   * listing that stops on an item its filter skipped resumes from there.
   */
  licensePosition: (item: Record<string, unknown>): { createdAt: string; licenseKey: string; keyScope?: 'team' } => {
    const { pk, gsi2sk } = item;
    const stored = typeof pk === 'string' && pk.startsWith('LIC#') ? pk.slice('LIC#'.length) : undefined;
    // Team ids and keys hold no `/`: what follows one is a key under its team.
    const slash = stored?.indexOf('/') ?? -1;
    const licenseKey = stored?.slice(slash + 1);
    if (licenseKey === undefined || typeof gsi2sk !== 'string' || !gsi2sk.endsWith(`#${licenseKey}`)) {
      throw new Error('not the keys of a license listed by app');
    }
    return { createdAt: gsi2sk.slice(0, -(licenseKey.length + 1)), licenseKey, ...(slash >= 0 ? { keyScope: 'team' as const } : {}) };
  },

  /** The expiry, key and scope of a license's `licenseByExpiry` entry, read back from its keys (as `licensePosition`). */
  expiryPosition: (item: Record<string, unknown>): { expiresAt: string; licenseKey: string; keyScope?: 'team' } => {
    const { sk } = item;
    // ISO times hold no `#`: the first one ends the expiry.
    const hash = typeof sk === 'string' ? sk.indexOf('#') : -1;
    if (typeof sk !== 'string' || hash < 0 || !sk.startsWith('LIC#', hash + 1)) throw new Error('not the keys of a license listed by expiry');
    const stored = sk.slice(hash + 1 + 'LIC#'.length);
    const slash = stored.indexOf('/');
    return { expiresAt: sk.slice(0, hash), licenseKey: stored.slice(slash + 1), ...(slash >= 0 ? { keyScope: 'team' as const } : {}) };
  },

  hwid: (appId: string, hwid: string): ItemKey => ({ pk: `APP#${appId}`, sk: `HWID#${hwid}` }),
  /**
   * A device a license lists as bound, whatever its subscription: one item per
   * license under the device's partition, named by the license's item key, so
   * /license/find reads every license bound to an HWID with one query. The
   * events consumer keeps these from the stream (data/lookup.repo.ts).
   */
  boundDevice: (appId: string, hwid: string, licenseItemPk: string): ItemKey => ({ pk: keys.devicesOf(appId, hwid), sk: licenseItemPk }),
  devicesOf: (appId: string, hwid: string): string => `APP#${appId}#DEV#${hwid}`,
  /**
   * A license with an expiry, in its app's expiry order (ISO times sort as
   * text; the license's item key breaks ties): the listing sorted by expiry
   * queries this partition. Kept by the events consumer like `boundDevice`.
   */
  licenseByExpiry: (appId: string, expiresAt: string, licenseItemPk: string): ItemKey => ({ pk: keys.expiryOrderOf(appId), sk: `${expiresAt}#${licenseItemPk}` }),
  expiryOrderOf: (appId: string): string => `APP#${appId}#BYEXPIRY`,
  /**
   * A license that carries a customer's email address (stored lower-cased):
   * one item per license under the address's partition, named by the license's
   * item key, so the licenses of one email are read with one query. Kept by the
   * events consumer like `boundDevice`.
   */
  licenseByEmail: (appId: string, email: string, licenseItemPk: string): ItemKey => ({ pk: keys.licensesOfEmail(appId, email), sk: licenseItemPk }),
  licensesOfEmail: (appId: string, email: string): string => `APP#${appId}#EMAIL#${email}`,
  /** Marks a data step of an upgrade as done on this table (`npm start` runs each once on a data directory). */
  migration: (name: string): ItemKey => ({ pk: `MIGRATION#${name}`, sk: 'MIGRATION' }),

  /** Usernames are unique per application regardless of case. */
  username: (appId: string, username: string): ItemKey => ({
    pk: `APP#${appId}`,
    sk: `USER#${username.toLowerCase()}`,
  }),

  blacklist: (appId: string, type: BlacklistType, normalizedValue: string): ItemKey => ({
    pk: `APP#${appId}`,
    sk: `BL#${type}#${normalizedValue}`,
  }),
  blacklistPrefix: (type?: BlacklistType): string => (type ? `BL#${type}#` : 'BL#'),

  /**
   * Idempotency record of one license's share of a bulk request, scoped to the
   * owner that sent it: under the owner's `request_id`, or without one under
   * API Gateway's id of the request, in a namespace of its own.
   */
  bulkMarker: (teamId: string, route: string, scope: { ownerRequestId?: string; gatewayRequestId: string }, licenseKey: string): ItemKey => {
    const requestId = scope.ownerRequestId ?? `gateway:${scope.gatewayRequestId}`;
    return { pk: `REQ#${teamId}#${route}#${requestId}#${licenseKey}`, sk: 'REQ' };
  },

  /** Idempotency record of a whole bulk request under the owner's `request_id`: what it set out to do, for the same request sent again. */
  bulkRequest: (teamId: string, route: string, requestId: string): ItemKey => ({ pk: `REQ#${teamId}#${route}#${requestId}`, sk: 'REQ' }),

  /** An audit item: under its app, in `auditPosition` order; the index entry lists one license's audit items the same way. */
  audit: (appId: string, position: string): ItemKey => ({ pk: `APP#${appId}#AUDIT`, sk: position }),
  auditOfApp: (appId: string): string => `APP#${appId}#AUDIT`,
  auditByLicense: (appId: string, licenseKey: string, position: string): Gsi1Key => ({
    gsi1pk: `APP#${appId}#AUDIT#LIC#${licenseKey}`,
    gsi1sk: position,
  }),
  /**
   * Where an event sorts in the audit log: by time, then by the stream's
   * sequence number (time has only seconds on the stream), then by the event's
   * place among its record's events.
   */
  auditPosition: (at: string, sequenceNumber: string, eventId: string): string => `${at}#${sequenceNumber.padStart(40, '0')}#${eventId}`,
  auditOfLicense: (appId: string, licenseKey: string): string => `APP#${appId}#AUDIT#LIC#${licenseKey}`,

  /** The daily counters of /app/stats: one item per app and UTC day (`YYYY-MM-DD`). */
  dailyStats: (appId: string, day: string): ItemKey => ({ pk: `APP#${appId}#STATS`, sk: `DAY#${day}` }),
  dailyStatsOfApp: (appId: string): string => `APP#${appId}#STATS`,
  dailyStatsSortKey: (day: string): string => `DAY#${day}`,
  /** The totals of /app/stats the events consumer keeps (licenses, paused, unused), beside the daily counters. */
  statsTotals: (appId: string): ItemKey => ({ pk: `APP#${appId}#STATS`, sk: 'TOTALS' }),
  /**
   * How many of an app's unpaused licenses expire within one UTC day (`D`,
   * time cut to `YYYY-MM-DD`), hour (`H`), minute (`M`), or at one instant
   * (`T`, the whole ISO time): /app/stats sums the days before today, the
   * hours of today before this one, and so on down to the instants up to now.
   */
  expiryCount: (appId: string, sortKey: string): ItemKey => ({ pk: `APP#${appId}#STATS`, sk: sortKey }),
  /** Without a level: what every expiry count's sort key begins with. */
  expirySortKey: (level?: ExpiryLevel, time = ''): string => (level === undefined ? 'EXP#' : `EXP#${level}#${time}`),

  /**
   * What one `usage_id` of a license counted (POST /usage), with the answer it
   * earned: in the license's own partition, so the same id of another license
   * is another item. It expires after 24 hours (`ttl`).
   */
  usageMarker: (license: ItemKey, usageId: string): ItemKey => ({ pk: license.pk, sk: `USAGE#${usageId}` }),

  /**
   * One device's trial of an application (docs/client-api.md#post-trial), in
   * the application's partition, so /trial reads it in the batch that reads the
   * application and the blacklist entries.
   */
  trialClaim: (appId: string, hwid: string): ItemKey => ({ pk: `APP#${appId}`, sk: `TRIAL#${hwid}` }),
  /**
   * When one source address started trials of an application in the last 24
   * hours: the address only as a hash, the item gone 24 hours after its newest
   * start (`ttl`).
   */
  trialAddress: (appId: string, addressHash: string): ItemKey => ({ pk: `APP#${appId}`, sk: `TRIALIP#${addressHash}` }),

  /**
   * A webhook endpoint, in a partition of its own that also holds its
   * deliveries (newest last by `deliverySortKey`), so the delivery function's
   * grants reach endpoints and their logs and nothing else of the app.
   */
  webhook: (webhookId: string): ItemKey => ({ pk: `WEBHOOK#${webhookId}`, sk: 'WEBHOOK' }),
  /** Endpoints of an app, in creation order. */
  webhookByApp: (appId: string, createdAt: string, webhookId: string): Gsi1Key => ({
    gsi1pk: keys.webhooksOfApp(appId),
    gsi1sk: `${createdAt}#${webhookId}`,
  }),
  webhooksOfApp: (appId: string): string => `APP#${appId}#WEBHOOKS`,
  /** How many endpoints an app has: the item whose condition keeps them at most 10. */
  webhookCount: (appId: string): ItemKey => ({ pk: keys.webhooksOfApp(appId), sk: 'COUNT' }),
  /** One event's delivery to one endpoint; `position` sorts by the event's time (functions/delivery/deliver.ts). */
  delivery: (webhookId: string, position: string): ItemKey => ({ pk: `WEBHOOK#${webhookId}`, sk: `${keys.deliveryPrefix}${position}` }),
  deliveryPrefix: 'DLV#',

  /**
   * An application's Stripe connection (docs/stripe.md): its encrypted secrets
   * and price map, in a partition of its own so that the function that serves
   * Stripe writes nowhere under the application's own partition.
   */
  stripeConnection: (appId: string): ItemKey => ({ pk: `STRIPE#${appId}`, sk: 'STRIPE' }),
  /**
   * The licenses made for one Stripe object of an application: its Checkout
   * Session, and the subscription, payment and first invoice that session made.
   * Stripe ids begin with their kind (`cs_`, `sub_`, `pi_`, `in_`), so one
   * namespace holds them all.
   */
  stripeLicenses: (appId: string, stripeId: string): ItemKey => ({ pk: `STRIPE#${appId}#OBJ#${stripeId}`, sk: 'LICENSES' }),
  /** A Checkout Session's purchase email (docs/portal.md): claimed by the delivery sending it, then marked sent, so a redelivered event sends no second message. */
  stripePurchaseEmail: (appId: string, sessionId: string): ItemKey => ({ pk: `STRIPE#${appId}#OBJ#${sessionId}`, sk: 'EMAILED' }),
  /** Marks one part of a Stripe event as applied (a big Checkout Session is made in several transactions). */
  stripeEvent: (appId: string, eventId: string, part: number): ItemKey => ({ pk: `STRIPE#${appId}#EVENT#${eventId}#${part}`, sk: 'EVENT' }),

  /**
   * The customer portal (docs/portal.md): a customer's sign-in code and the times of their
   * recent sign-ins, keyed by the application's keyed hash of the email (never the address);
   * an address's recent sign-ins by a hash of the address; a session by the SHA-256 of its
   * token (never the token). All expire by `ttl`.
   */
  portalCode: (appId: string, emailHash: string): ItemKey => ({ pk: `PORTAL#${appId}#EMAIL#${emailHash}`, sk: 'CODE' }),
  portalEmailSignIns: (appId: string, emailHash: string): ItemKey => ({ pk: `PORTAL#${appId}#EMAIL#${emailHash}`, sk: 'SIGNINS' }),
  portalAddressSignIns: (appId: string, addressHash: string): ItemKey => ({ pk: `PORTAL#${appId}#IP#${addressHash}`, sk: 'SIGNINS' }),
  portalSession: (tokenHash: string): ItemKey => ({ pk: `PORTAL#SESSION#${tokenHash}`, sk: 'SESSION' }),

  /** Marks a stream record as counted and audited, so a redelivered record changes nothing twice. */
  streamRecord: (eventId: string): ItemKey => ({ pk: `STREAM#${eventId}`, sk: 'STREAM' }),

  /**
   * What a changed item is, read from its keys, for the events consumer.
   * Items that are no entity of an event (index items, audit, counters,
   * markers) are `undefined`.
   */
  entityOf: (key: Record<string, unknown>): EntityRef | undefined => {
    const { pk, sk } = key;
    if (typeof pk !== 'string' || typeof sk !== 'string') return undefined;
    if (sk === 'LIC' && pk.startsWith('LIC#')) return { kind: 'license' };
    if (sk === 'SUB' && pk.startsWith('SUB#')) return { kind: 'subscription', id: pk.slice('SUB#'.length) };
    const app = /^APP#([^#]+)$/.exec(pk);
    if (app && sk === 'APP') return { kind: 'app', id: app[1]! };
    if (app && sk.startsWith('BL#')) return { kind: 'blacklist', appId: app[1]! };
    if (app && sk.startsWith('USER#')) return { kind: 'username', appId: app[1]! };
    if (sk === 'WEBHOOK' && pk.startsWith('WEBHOOK#')) return { kind: 'webhook', id: pk.slice('WEBHOOK#'.length) };
    const stripe = /^STRIPE#([^#]+)$/.exec(pk);
    if (stripe && sk === 'STRIPE') return { kind: 'stripe', appId: stripe[1]! };
    if (sk === 'SESSION' && pk.startsWith('PORTAL#SESSION#')) return { kind: 'portalSession' };
    return undefined;
  },
} as const;

export type EntityRef =
  | { kind: 'app'; id: string }
  | { kind: 'license' }
  | { kind: 'subscription'; id: string }
  | { kind: 'blacklist'; appId: string }
  | { kind: 'username'; appId: string }
  | { kind: 'webhook'; id: string }
  | { kind: 'stripe'; appId: string }
  | { kind: 'portalSession' };
