import type { Group } from '../functions/routes';

/**
 * The DynamoDB actions each Lambda may call on the table, and nothing more.
 * A change in what a group's code sends to DynamoDB is a one-line change here.
 */
export interface TableAccess {
  actions: readonly string[];
  /** Query is also allowed on the table's global secondary indexes. */
  queriesIndexes: boolean;
}

const singleItemWrites = ['dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'];
const transactions = ['dynamodb:TransactWriteItems', 'dynamodb:ConditionCheckItem'];

export const tableAccess: Record<Group | 'authorizer', TableAccess> = {
  client: {
    actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', ...singleItemWrites, ...transactions],
    queriesIndexes: false,
  },
  license: {
    actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', ...singleItemWrites, ...transactions, 'dynamodb:Query', 'dynamodb:BatchWriteItem'],
    queriesIndexes: true,
  },
  hwid: {
    actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', ...singleItemWrites, ...transactions],
    queriesIndexes: false,
  },
  subscription: {
    actions: ['dynamodb:GetItem', ...singleItemWrites, 'dynamodb:Query', ...transactions],
    queriesIndexes: true,
  },
  blacklist: {
    actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'],
    queriesIndexes: false,
  },
  authorizer: {
    actions: ['dynamodb:GetItem'],
    queriesIndexes: false,
  },
};
