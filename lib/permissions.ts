import { keys } from '../functions/data/keys';
import type { Group } from '../functions/routes';

/**
 * The DynamoDB access each Lambda gets, and nothing more: what its code sends
 * today, on the partitions it touches. IAM has no TransactWriteItems action: a
 * transaction is authorized item by item (PutItem, UpdateItem, DeleteItem,
 * ConditionCheckItem), so listing those is what lets a function write in a
 * transaction. A change in what a group's code sends to DynamoDB is a change
 * here (and in test/cdk/permissions.test.ts, which spells the grants out).
 */
export type Partition = 'apiKey' | 'team' | 'app' | 'subscription' | 'license' | 'request' | 'audit' | 'dailyStats' | 'streamRecord';

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
};

/**
 * Partitions under an app's prefix that one function may write without
 * reaching the app's other items: the app id becomes a wildcard, the rest of
 * the key stays (`APP#*#AUDIT*` also covers one license's audit index partition).
 */
const appScoped: Partial<Record<Partition, string>> = {
  audit: `${keys.auditOfApp('*')}*`,
  dailyStats: keys.dailyStatsOfApp('*'),
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
  /** Query is also allowed on the table's global secondary indexes, on these index partitions. */
  queriesIndexes: readonly Partition[];
}

export const tableAccess: Record<Group | 'authorizer' | 'events' | 'openapi', TableAccess> = {
  // /auth reads app, team, subscription, blacklist, username index and license in one BatchGetItem, then activates
  // (license update, HWID index put); /register swaps the username index in a transaction; failed /auth counts are
  // added to the app's daily counters. Never API keys or teams.
  client: {
    grants: [
      { actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'], partitions: ['app', 'team', 'subscription', 'license'] },
      { actions: ['dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'], partitions: ['app', 'license'] },
    ],
    queriesIndexes: [],
  },
  // Lists per app through the index; bulk creation and deletion write in batches; extend-bulk keeps idempotency records.
  license: {
    grants: [
      { actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'], partitions: ['app', 'subscription', 'license', 'request'] },
      {
        actions: ['dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem', 'dynamodb:BatchWriteItem'],
        partitions: ['app', 'license', 'request'],
      },
    ],
    queriesIndexes: ['app'],
  },
  // Flag updates, and HWID changes that move the HWID index item in a transaction.
  hwid: {
    grants: [
      { actions: ['dynamodb:GetItem'], partitions: ['app', 'subscription', 'license'] },
      { actions: ['dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'], partitions: ['app', 'license'] },
    ],
    queriesIndexes: [],
  },
  // Tiers are listed per app through the index.
  subscription: {
    grants: [
      { actions: ['dynamodb:GetItem', 'dynamodb:Query'], partitions: ['app', 'subscription'] },
      { actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'], partitions: ['subscription'] },
    ],
    queriesIndexes: ['app'],
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
  // applications through the index (`TEAM#<id>#APPS`); /app/stats counts the app's licenses in the index and
  // reads its daily counters; /audit/get-bulk queries the audit partition, or one license's audit entries in the index.
  app: {
    grants: [{ actions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem'], partitions: ['app'] }],
    queriesIndexes: ['app', 'team'],
  },
  // Serves the committed OpenAPI document: it reads nothing from the table.
  openapi: {
    grants: [],
    queriesIndexes: [],
  },
  // The stream consumer only writes, in transactions: the marks of records done, audit items, daily counters.
  events: {
    grants: [{ actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem'], partitions: ['streamRecord', 'audit', 'dailyStats'] }],
    queriesIndexes: [],
  },
};
