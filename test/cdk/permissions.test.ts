import { tableAccess } from '../../lib/permissions';

// The grants written out in full, so that widening one is a visible change in review, not a side effect.
describe('table access per function', () => {
  const expected = {
    client: ['BatchGetItem', 'DeleteItem', 'GetItem', 'PutItem', 'TransactWriteItems', 'UpdateItem'],
    license: ['BatchGetItem', 'BatchWriteItem', 'ConditionCheckItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query', 'TransactWriteItems', 'UpdateItem'],
    hwid: ['DeleteItem', 'GetItem', 'PutItem', 'TransactWriteItems', 'UpdateItem'],
    subscription: ['DeleteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'],
    blacklist: ['DeleteItem', 'GetItem', 'Query', 'UpdateItem'],
    authorizer: ['GetItem'],
  };

  it.each(Object.entries(expected))('allows the %s function exactly its actions', (name, actions) => {
    const access = tableAccess[name as keyof typeof tableAccess];
    expect([...access.actions].sort()).toEqual(actions.map((action) => `dynamodb:${action}`));
  });

  it('lets only the groups that list by index query the indexes', () => {
    const indexed = Object.entries(tableAccess).filter(([, access]) => access.queriesIndexes).map(([name]) => name);
    expect(indexed.sort()).toEqual(['license', 'subscription']);
  });
});
