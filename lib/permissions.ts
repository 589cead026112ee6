import type { Group } from '../functions/routes';

/**
 * The DynamoDB actions each Lambda may call on the table, and nothing more: what
 * its code sends today. IAM authorizes a transaction by the item actions inside it
 * (Put, Update, Delete, ConditionCheck), so those are listed beside
 * TransactWriteItems. A change in what a group's code sends to DynamoDB is a
 * one-line change here (and in test/cdk/permissions.test.ts, which spells the
 * grants out).
 */
export interface TableAccess {
  actions: readonly string[];
  /** Query is also allowed on the table's global secondary indexes. */
  queriesIndexes: boolean;
}

export const tableAccess: Record<Group | 'authorizer', TableAccess> = {
  // /auth reads in one BatchGetItem, activates with an update or a transaction (license update, HWID index put);
  // /register swaps the username index in a transaction (put, update, delete).
  client: {
    actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:TransactWriteItems'],
    queriesIndexes: false,
  },
  // Lists per app through the index; bulk creation and deletion write in batches.
  license: {
    actions: [
      'dynamodb:GetItem',
      'dynamodb:BatchGetItem',
      'dynamodb:UpdateItem',
      'dynamodb:PutItem',
      'dynamodb:DeleteItem',
      'dynamodb:TransactWriteItems',
      'dynamodb:ConditionCheckItem',
      'dynamodb:Query',
      'dynamodb:BatchWriteItem',
    ],
    queriesIndexes: true,
  },
  // Flag updates, and HWID changes that move the HWID index item in a transaction.
  hwid: {
    actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:TransactWriteItems'],
    queriesIndexes: false,
  },
  // Tiers are listed per app through the index.
  subscription: {
    actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:Query'],
    queriesIndexes: true,
  },
  // Entries live under their app's partition: listing queries the table itself; adding is an upsert (UpdateItem).
  blacklist: {
    actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:Query'],
    queriesIndexes: false,
  },
  authorizer: {
    actions: ['dynamodb:GetItem'],
    queriesIndexes: false,
  },
};
