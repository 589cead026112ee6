import { randomUUID } from 'node:crypto';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { readConfig } from '#core/config';
import { licenseItem } from '#data/items';
import type { License } from '#data/model/license';
import type { Subscription } from '#data/model/subscription';
import { createTableInput } from '#data/table';
import { migrateLicenseIndex } from '../../functions/admin/maintenance';
import { meterDynamo } from '../../local/ddb-meter';
import { addMissingIndexes, startLocalStore, type LocalStore } from '../../local/store';
import { createFakeClock } from '../support/clock';
import { createTestClient, startTestServer, type TestServer } from '../support/env';
import { licenseRecord, seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';

/**
 * Upgrading a table made before licenses had a listing index of their own
 * (docs/deployment.md, "Upgrading a deployed table"): the table is created with
 * the definition of that time (one index, `gsi1`, copying whole items) and
 * holds licenses written as they were then; the index is added as the stack
 * adds it, the admin CLI's `migrate license-index` moves the entries, and every
 * listing, filter, cursor and total answers as it did.
 */
const clock = createFakeClock(new Date('2026-03-10T12:00:00.000Z'));
const tableName = `test-${randomUUID()}`;
let store: LocalStore;
let env: TestServer;
let owner: Owner;
let subscription: Subscription;
let licenses: License[];

/** The table as the code before `gsi2` created it. */
function tableOfBefore() {
  const input = createTableInput(tableName);
  const legacy = new Set(['pk', 'sk', 'gsi1pk', 'gsi1sk']);
  return {
    ...input,
    AttributeDefinitions: input.AttributeDefinitions!.filter((definition) => legacy.has(definition.AttributeName!)),
    GlobalSecondaryIndexes: input.GlobalSecondaryIndexes!.filter((index) => index.IndexName === 'gsi1'),
  };
}

/** A license item as the code before `gsi2` wrote it: its listing entry in `gsi1`. */
function itemOfBefore(license: License): Record<string, unknown> {
  const { gsi2pk, gsi2sk, ...rest } = licenseItem(license);
  return { ...rest, gsi1pk: gsi2pk, gsi1sk: gsi2sk };
}

beforeAll(async () => {
  // A store of its own: DynamoDB Local backfills a new index slowly while the rest of the suite
  // writes to the shared one (5 s alone, over 180 s beside the whole run in CI).
  store = await startLocalStore({ port: 0 });
  const config = { ...readConfig(), dynamodbEndpoint: store.endpoint, tableName };
  const client = createTestClient(config);
  await client.send(new CreateTableCommand(tableOfBefore()));
  client.destroy();
  env = await startTestServer({ clock, config: { dynamodbEndpoint: store.endpoint, tableName, cacheTtlSeconds: 0 } });
  owner = await createOwner(env.deps);
  subscription = await seedSubscription(env.deps, owner);
  const other = await seedSubscription(env.deps, owner, { name: 'Other' });
  const day = 86400_000;
  licenses = Array.from({ length: 23 }, (_, index) => {
    // Three licenses share a creation time: the key orders them.
    const createdAt = new Date(Date.parse('2026-01-01T00:00:00.000Z') + Math.min(index, 20) * day).toISOString();
    const used = index % 3 === 0;
    return licenseRecord(index % 4 === 0 ? other : subscription, {
      created_at: createdAt,
      status: index % 5 === 0 ? 'paused' : 'active',
      tags: index % 2 === 0 ? ['even'] : [],
      first_used_at: used ? createdAt : null,
      last_login: used ? createdAt : null,
      // Used licenses of 30 days made before February have expired by March 10.
      expires_at: used ? new Date(Date.parse(createdAt) + 30 * day).toISOString() : null,
    });
  });
  for (const license of licenses) await env.deps.table.doc.send(new PutCommand({ TableName: tableName, Item: itemOfBefore(license) }));
}, 60_000);
afterAll(async () => {
  await env.close();
  await store.stop();
});

const newestFirst = (list: License[]) => [...list].sort((a, b) => (`${b.created_at}#${b.key}` < `${a.created_at}#${a.key}` ? -1 : 1)).map((license) => license.key);

async function listed(filter: Record<string, unknown>, perPage: number): Promise<string[]> {
  const found: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await env.post('/license/get-bulk', { app_id: owner.app_id, per_page: perPage, ...filter, ...(cursor ? { cursor } : {}) }, owner.auth);
    expect(page.status).toBe(200);
    found.push(...page.body.data.map((license: { key: string }) => license.key));
    cursor = page.body.next_cursor;
  } while (cursor);
  return found;
}

describe('upgrading a table from before the license listing index', () => {
  it('lists, filters, pages and counts every license as before, and a later /auth writes 1 unit', async () => {
    expect(await addMissingIndexes(env.client, tableName)).toEqual(['gsi2']);
    const migrated = await migrateLicenseIndex(env.deps);
    expect(migrated).toEqual({ moved: licenses.length, recounted_apps: 1 });

    expect(await listed({}, 7)).toEqual(newestFirst(licenses));
    expect(await listed({ sort_order: 'asc' }, 10)).toEqual(newestFirst(licenses).reverse());
    expect(await listed({ status: 'paused' }, 2)).toEqual(newestFirst(licenses.filter((license) => license.status === 'paused')));
    expect(await listed({ tag: 'even', subscription_id: subscription.subscription_id }, 3)).toEqual(
      newestFirst(licenses.filter((license) => license.tags.includes('even') && license.subscription_id === subscription.subscription_id)),
    );

    const now = clock.now().toISOString();
    const paused = licenses.filter((license) => license.status === 'paused').length;
    const expired = licenses.filter((license) => license.status === 'active' && license.expires_at !== null && license.expires_at <= now).length;
    expect(expired).toBeGreaterThan(0);
    const stats = await env.post('/app/stats', { app_id: owner.app_id, days: 1 }, owner.auth);
    expect(stats.body.data.totals).toEqual({
      licenses: licenses.length,
      active: licenses.length - paused - expired,
      paused,
      expired,
      unused: licenses.filter((license) => license.first_used_at === null).length,
    });

    // The applications and subscriptions stay listed in gsi1.
    expect((await env.post('/app/list', {}, owner.auth)).body.data.map((app: { app_id: string }) => app.app_id)).toEqual([owner.app_id]);
    expect((await env.post('/subscription/get-bulk', { app_id: owner.app_id }, owner.auth)).body.data).toHaveLength(2);

    const unused = licenses.find((license) => license.first_used_at === null && license.status === 'active')!;
    expect((await env.post('/auth', { app_id: owner.app_id, license: unused.key })).status).toBe(200);
    clock.advance(60);
    const meter = meterDynamo(env.client);
    expect((await env.post('/auth', { app_id: owner.app_id, license: unused.key })).body.success).toBe(true);
    expect(meter.writeUnits()).toBe(1);

    const { Items } = await env.deps.table.doc.send(new ScanCommand({ TableName: tableName, FilterExpression: 'sk = :sk AND attribute_exists(gsi1pk)', ExpressionAttributeValues: { ':sk': 'LIC' } }));
    expect(Items).toEqual([]);
    expect(await migrateLicenseIndex(env.deps)).toEqual({ moved: 0, recounted_apps: 1 });
  }, 60_000);
});
