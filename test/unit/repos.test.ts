import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createTable } from '#data/db';
import { createItemCache } from '#data/item-cache';
import { createRepos } from '#data/repos';
import { createFakeClock } from '../support/clock';

function repos() {
  const client = new DynamoDBClient({ region: 'local', endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  return createRepos(createTable(client, 'unused'), createItemCache(5, createFakeClock()));
}

describe('the repositories of a table', () => {
  it('makes none before it is used, then each on its first use, once', () => {
    const set = repos();
    const made = () => Object.keys(set).filter((name) => 'value' in Object.getOwnPropertyDescriptor(set, name)!);
    expect(made()).toEqual([]);
    const licenses = set.licenses;
    expect(made()).toEqual(['licenses']);
    expect(set.licenses).toBe(licenses);
    expect(typeof licenses.get).toBe('function');
  });

  it('lists every repository, and a spread makes them all', () => {
    const set = repos();
    expect(Object.keys(set)).toEqual(['teams', 'apiKeys', 'apps', 'subscriptions', 'licenses', 'hwids', 'lookups', 'leases', 'usernames', 'blacklist', 'credentials', 'auth', 'events', 'usage', 'webhooks', 'stripe', 'bulkRequests']);
    const copy = { ...set };
    for (const repo of Object.values(copy)) expect(typeof repo).toBe('object');
    expect(copy.auth).toBe(set.auth);
  });
});
