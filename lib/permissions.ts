import { keys } from '../functions/data/keys';
import type { FunctionName } from '../functions/routes';
import type { IndexName } from '../functions/data/table';

/**
 * The DynamoDB access each Lambda gets, and nothing more: what its code sends,
 * action by action, on the partitions it sends it to. IAM has no
 * TransactWriteItems action: a transaction is authorized item by item
 * (PutItem, UpdateItem, DeleteItem, ConditionCheckItem on each item's
 * partition), so listing those is what lets a function write in a transaction.
 * `npm test` holds every call of every route's tests to these grants, and
 * fails on a grant no call used (test/after-run/iam-conformance.test.ts).
 */
export type Partition = 'apiKey' | 'team' | 'app' | 'subscription' | 'license' | 'request' | 'audit' | 'dailyStats' | 'streamRecord' | 'stripe' | 'webhook' | 'webhooksOfApp' | 'devices' | 'expiryOrder' | 'migration' | 'emails' | 'portal';

/** `LIC#x` → `LIC#`: what every partition key of that entity begins with. */
function prefixOf(partitionKey: string): string {
  return partitionKey.slice(0, partitionKey.indexOf('#') + 1);
}

/**
 * Taken from the key builders themselves, so the grants follow functions/data/keys.ts.
 * The index partitions (`APP#<id>#LICS`, `APP#<id>#SUBS`) share the app's prefix.
 */
export const partitionPrefixes: Record<Partition, string> = {
  apiKey: prefixOf(keys.apiKey('-').pk),
  team: prefixOf(keys.team('-').pk),
  app: prefixOf(keys.app('-').pk),
  subscription: prefixOf(keys.subscription('-').pk),
  license: prefixOf(keys.license('-').pk),
  request: prefixOf(keys.bulkMarker('-', '-', { gatewayRequestId: '-' }, '-').pk),
  audit: prefixOf(keys.auditOfApp('-')),
  dailyStats: prefixOf(keys.dailyStatsOfApp('-')),
  streamRecord: prefixOf(keys.streamRecord('-').pk),
  webhook: prefixOf(keys.webhook('-').pk),
  webhooksOfApp: prefixOf(keys.webhooksOfApp('-')),
  stripe: prefixOf(keys.stripeConnection('-').pk),
  devices: prefixOf(keys.devicesOf('-', '-')),
  expiryOrder: prefixOf(keys.expiryOrderOf('-')),
  // Only the admin CLI and `npm start` read and write these: no function is granted them.
  migration: prefixOf(keys.migration('-').pk),
  emails: prefixOf(keys.licensesOfEmail('-', '-')),
  portal: prefixOf(keys.portalSession('-').pk),
};

/**
 * Partitions under an app's prefix that one function may write without
 * reaching the app's other items: the app id becomes a wildcard, the rest of
 * the key stays (`APP#*#AUDIT*` also covers one license's audit index partition).
 */
const appScoped: Partial<Record<Partition, string>> = {
  audit: `${keys.auditOfApp('*')}*`,
  dailyStats: keys.dailyStatsOfApp('*'),
  webhooksOfApp: keys.webhooksOfApp('*'),
  devices: keys.devicesOf('*', '*'),
  expiryOrder: keys.expiryOrderOf('*'),
  emails: keys.licensesOfEmail('*', '*'),
};

/** `dynamodb:LeadingKeys` patterns (ForAllValues:StringLike) for these partitions. */
export function leadingKeyPatterns(partitions: readonly Partition[]): string[] {
  return partitions.map((partition) => appScoped[partition] ?? `${partitionPrefixes[partition]}*`);
}

export interface TableGrant {
  actions: readonly string[];
  /** Every item key (or queried partition) must lie in one of these partitions. */
  partitions: readonly Partition[];
}

export interface TableAccess {
  grants: readonly TableGrant[];
  /** Query is also allowed on the global secondary indexes `indexes` names, on these index partitions. */
  queriesIndexes: readonly Partition[];
  /** The indexes the function queries (data/table.ts): licenses are listed in `gsi2`, the rest in `gsi1`. */
  indexes?: readonly IndexName[];
}

export const tableAccess: Record<FunctionName, TableAccess> = {
  // /auth reads app, blacklist, license, then team and subscription in BatchGetItems and activates (license update,
  // HWID index items put or dropped, a condition check that another license's lease of the device has ended);
  // /register swaps the username index items in a transaction; failed /auth counts go to the app's daily counters.
  // /trial reads the device's claim with the app, then the claim and the address's start times of the last 24 hours
  // together (both in the app's partition, `APP#<id>`), and starts a trial in one transaction: the license, the claim,
  // the address's start times and the HWID index item where one is kept.
  // Never API keys, and teams only read.
  client: {
    grants: [
      { actions: ['dynamodb:BatchGetItem'], partitions: ['app', 'team', 'subscription', 'license'] },
      { actions: ['dynamodb:GetItem'], partitions: ['app', 'license'] },
      { actions: ['dynamodb:UpdateItem'], partitions: ['app', 'license'] },
      { actions: ['dynamodb:PutItem', 'dynamodb:DeleteItem'], partitions: ['app'] },
      { actions: ['dynamodb:ConditionCheckItem'], partitions: ['license'] },
      // /usage with a usage_id writes its marker in the license's partition, in the transaction that counts.
      { actions: ['dynamodb:PutItem'], partitions: ['license'] },
    ],
    queriesIndexes: [],
  },
  // Lists per app through the index; creation writes licenses and their index items in transactions, and bulk
  // creation removes what a failed chunk wrote in batches; extend-bulk keeps idempotency records.
  license: {
    grants: [
      { actions: ['dynamodb:BatchGetItem'], partitions: ['app', 'subscription', 'license'] },
      { actions: ['dynamodb:GetItem'], partitions: ['app', 'subscription'] },
      { actions: ['dynamodb:PutItem'], partitions: ['app', 'license', 'request'] },
      { actions: ['dynamodb:UpdateItem', 'dynamodb:BatchWriteItem'], partitions: ['license'] },
      // create-bulk under a request_id records each chunk written in its plan, in the chunk's transaction.
      { actions: ['dynamodb:UpdateItem'], partitions: ['request'] },
      { actions: ['dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'], partitions: ['app', 'license'] },
      // /license/find reads the licenses bound to a device from its entries (`APP#<id>#DEV#<hwid>`) and those of an
      // email from its entries (`APP#<id>#EMAIL#<email>`); the listing sorted by expiry reads the app's expiry order
      // (`APP#<id>#BYEXPIRY`).
      { actions: ['dynamodb:Query'], partitions: ['devices', 'expiryOrder', 'emails'] },
    ],
    queriesIndexes: ['app'],
    indexes: ['gsi2'],
  },
  // Flag updates, and HWID changes that move the HWID index items in a transaction: the owner of each device is
  // looked up in one BatchGetItem, and a device another license holds is taken only if that license's lease ended.
  hwid: {
    grants: [
      { actions: ['dynamodb:BatchGetItem'], partitions: ['app', 'license'] },
      { actions: ['dynamodb:GetItem'], partitions: ['app', 'subscription'] },
      { actions: ['dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem'], partitions: ['license'] },
      { actions: ['dynamodb:PutItem', 'dynamodb:DeleteItem'], partitions: ['app'] },
    ],
    queriesIndexes: [],
  },
  // Tiers are listed per app through the index.
  subscription: {
    grants: [
      { actions: ['dynamodb:GetItem'], partitions: ['app', 'subscription'] },
      { actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'], partitions: ['subscription'] },
    ],
    queriesIndexes: ['app'],
    indexes: ['gsi1'],
  },
  // Entries live under their app's partition: listing queries the table itself; adding is an upsert (UpdateItem).
  blacklist: {
    grants: [{ actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:Query'], partitions: ['app'] }],
    queriesIndexes: [],
  },
  authorizer: {
    grants: [{ actions: ['dynamodb:GetItem'], partitions: ['apiKey'] }],
    queriesIndexes: [],
  },
  // Ownership reads the app; settings and signing keys live on the app's item; /app/list lists the team's
  // applications through the index (`TEAM#<id>#APPS`); /app/stats reads the app's totals, expiry counts and daily
  // counters (`APP#<id>#STATS`); /audit/get-bulk queries the audit partition, or one license's audit entries in the index.
  // /app/create puts the new application's item (conditional on its absence); /app/update and rotation update it.
  // /apikey/create puts a key's item (`APIKEY#<hash>`), /apikey/revoke updates it, /apikey/list queries the team's keys in the index.
  // /app/settings reads the subscription a trial names.
  app: {
    grants: [
      { actions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem', 'dynamodb:PutItem'], partitions: ['app'] },
      { actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem'], partitions: ['apiKey'] },
      { actions: ['dynamodb:GetItem'], partitions: ['subscription'] },
    ],
    queriesIndexes: ['app', 'team'],
    indexes: ['gsi1'],
  },
  // Stripe (docs/stripe.md): the connection, the licenses made per Stripe object and the marks of applied events live
  // under `STRIPE#`; ownership reads the app and the price map's tiers; a Checkout Session's licenses are new items,
  // written in a transaction with the event's mark; renewals, cancellations and refunds update licenses, which are read
  // in batches for that and for /integration/stripe/licenses.
  integration: {
    grants: [
      { actions: ['dynamodb:GetItem'], partitions: ['app', 'stripe'] },
      { actions: ['dynamodb:BatchGetItem'], partitions: ['subscription', 'license'] },
      { actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem'], partitions: ['stripe', 'license'] },
      { actions: ['dynamodb:DeleteItem'], partitions: ['stripe'] },
    ],
    queriesIndexes: [],
  },
  // The customer portal (docs/portal.md): reads the application (is its portal on, its secret); finds the licenses of
  // an email from their lookup entries (`APP#<id>#EMAIL#<email>`); keeps sign-in counts, codes and sessions under
  // `PORTAL#`: counts read together, written in a transaction with the new code; a wrong try updates the code, the
  // last one or the right one deletes it; a session is put, read and deleted. Billing reads the application's Stripe
  // connection (`STRIPE#`) for its restricted key.
  portal: {
    grants: [
      { actions: ['dynamodb:GetItem'], partitions: ['app', 'portal', 'stripe'] },
      { actions: ['dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'], partitions: ['portal'] },
      { actions: ['dynamodb:Query'], partitions: ['emails'] },
      // /portal/licenses reads the session's licenses and their subscriptions; a release and a license file run
      // /auth's checks (the app, license, team and subscription read together), then update the license in a
      // transaction that puts or deletes the device's HWID index item (in the app's partition) and checks that no
      // other license holds the device.
      { actions: ['dynamodb:BatchGetItem'], partitions: ['app', 'team', 'license', 'subscription'] },
      { actions: ['dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem'], partitions: ['license'] },
      { actions: ['dynamodb:PutItem', 'dynamodb:DeleteItem'], partitions: ['app'] },
    ],
    queriesIndexes: [],
  },
  // Serves the committed OpenAPI document: it reads nothing from the table.
  openapi: {
    grants: [],
    queriesIndexes: [],
  },
  // Endpoints and their delivery logs live in their own partitions (`WEBHOOK#<id>`): created and deleted in a
  // transaction with the app's endpoint count (`APP#<id>#WEBHOOKS`), listed per app through the index, their
  // logs queried in the table; ownership reads the app.
  webhook: {
    grants: [
      { actions: ['dynamodb:GetItem'], partitions: ['app', 'webhook'] },
      { actions: ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:Query'], partitions: ['webhook'] },
      { actions: ['dynamodb:UpdateItem'], partitions: ['webhook', 'webhooksOfApp'] },
    ],
    queriesIndexes: ['webhooksOfApp'],
    indexes: ['gsi1'],
  },
  // Lists an app's endpoints through the index, writes each delivery and its attempts, and records an
  // endpoint's failures (or disables it) on the endpoint's item. Nothing of the app, no license.
  delivery: {
    grants: [{ actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], partitions: ['webhook'] }],
    queriesIndexes: ['webhooksOfApp'],
    indexes: ['gsi1'],
  },
  // The stream consumer only writes, in transactions: marks of records done and audit items are new items,
  // counters (daily, the totals of /app/stats, expiry counts: all under `APP#<id>#STATS`) are added to; the
  // lookup entries of /license/find and the listing by expiry (`APP#<id>#DEV#<hwid>`, `APP#<id>#BYEXPIRY`) and the
  // licenses of each customer email (`APP#<id>#EMAIL#<email>`) are put and deleted in batches.
  events: {
    grants: [
      { actions: ['dynamodb:PutItem'], partitions: ['streamRecord', 'audit'] },
      { actions: ['dynamodb:UpdateItem'], partitions: ['dailyStats'] },
      { actions: ['dynamodb:BatchWriteItem'], partitions: ['devices', 'expiryOrder', 'emails'] },
    ],
    queriesIndexes: [],
  },
};

/**
 * What each function does with the stack's SES identity (setting `sesIdentity`): `send` is granted
 * `ses:SendEmail` on that identity's ARN alone; `know` is only told it (`SES_IDENTITY`), as the app
 * function is, to refuse switching the customer portal on in a deployment that cannot send.
 */
export const emailUse: Partial<Record<FunctionName, 'send' | 'know'>> = {
  app: 'know',
  // A Stripe purchase emails the buyer their keys when the application's portal is on.
  integration: 'send',
  // Sign-in codes.
  portal: 'send',
};
