import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { createApp } from '../../functions/admin/owners';
import { mapConcurrently } from '#core/domain/bulk';
import { maxItemsReadPerList } from '#data/db';
import { licenseItem } from '#data/items';
import type { License } from '#data/model/license';
import type { Subscription } from '#data/model/subscription';
import { meterDynamo, type DynamoMeter } from '../../local/ddb-meter';
import { startTestServer, type TestServer } from '../support/env';
import { licenseRecord, seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';

/**
 * /license/get-bulk over an app bigger than one request may read: a rare
 * filter takes several bounded requests, each answering the matches it found,
 * and the cursor resumes exactly where the reading stopped.
 */
let env: TestServer;
let owner: Owner;
let meter: DynamoMeter;
let subscriptionReads: SubscriptionReads;
let tiers: Subscription[];
/** 3000 licenses, one a second, oldest first, across three tiers. */
const licenses: License[] = [];
/** Positions of the few licenses tagged `rare`, around the read bound from both ends. */
const rareAt = [5, 999, 1000, 1001, 1998, 1999, 2000, 2001, 2500, 2999];

beforeAll(async () => {
  env = await startTestServer();
  owner = await createOwner(env.deps);
  tiers = [
    await seedSubscription(env.deps, owner, { name: 'Gold', level: 3 }),
    await seedSubscription(env.deps, owner, { name: 'Silver', level: 2 }),
    await seedSubscription(env.deps, owner, { name: 'Bronze', level: 1 }),
  ];
  for (let i = 0; i < 5; i++) await seedSubscription(env.deps, owner, { name: `Unused ${i}` });
  for (let i = 0; i < 3000; i++) {
    licenses.push(
      licenseRecord(tiers[i % 3]!, {
        created_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
        tags: rareAt.includes(i) ? ['rare'] : ['common'],
      }),
    );
  }
  await seedDirectly(licenses);
  meter = meterDynamo(env.client);
  subscriptionReads = countSubscriptionReads(env);
}, 60_000);
afterAll(() => env.close());

/** BatchWriteItem straight through the document client, 25 to a batch, several batches at once: seeding through the API would take minutes. */
async function seedDirectly(items: License[]) {
  const batches: License[][] = [];
  for (let start = 0; start < items.length; start += 25) batches.push(items.slice(start, start + 25));
  await mapConcurrently(batches, 8, async (batch) => {
    let requests = batch.map((license) => ({ PutRequest: { Item: licenseItem(license) } }));
    while (requests.length > 0) {
      const answer = await env.deps.table.doc.send(new BatchWriteCommand({ RequestItems: { [env.deps.table.name]: requests } }));
      requests = (answer.UnprocessedItems?.[env.deps.table.name] ?? []) as typeof requests;
    }
  });
}

interface SubscriptionReads {
  /** Subscription items read since the last reset, by id, counting every read of each. */
  byId(): Map<string, number>;
  reset(): void;
}

/** Every subscription item the server reads, whether by GetItem, BatchGetItem or a query of an app's tiers. */
function countSubscriptionReads(testEnv: TestServer): SubscriptionReads {
  let reads = new Map<string, number>();
  // Marshalled ({ S: '…' }) or not, depending on where in the stack the document client translates.
  const text = (value: any): string | undefined => (typeof value === 'string' ? value : value?.S);
  const add = (item: Record<string, any> | undefined) => {
    const id = text(item?.subscription_id);
    if (text(item?.pk)?.startsWith('SUB#') && id) reads.set(id, (reads.get(id) ?? 0) + 1);
  };
  testEnv.client.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const output = result.output as { Item?: Record<string, any>; Items?: Record<string, any>[]; Responses?: Record<string, Record<string, any>[]> };
      add(output.Item);
      output.Items?.forEach(add);
      Object.values(output.Responses ?? {}).forEach((items) => items.forEach(add));
      return result;
    },
    { step: 'initialize', name: 'subscriptionReadCounter' },
  );
  return { byId: () => reads, reset: () => (reads = new Map()) };
}

const keysOf = (list: { key: string }[]) => list.map((license) => license.key);

/** Pages through get-bulk, metering each request on its own. */
async function pageThrough(body: Record<string, unknown>) {
  const pages: { keys: string[]; nextCursor: string | null; itemsRead: number }[] = [];
  let cursor: string | null = null;
  do {
    meter.reset();
    const response = await env.post('/license/get-bulk', { app_id: owner.app_id, ...body, ...(cursor ? { cursor } : {}) }, owner.auth);
    if (response.status !== 200) throw new Error(`get-bulk answered ${response.status}: ${JSON.stringify(response.body)}`);
    cursor = response.body.next_cursor;
    pages.push({
      keys: keysOf(response.body.data),
      nextCursor: cursor,
      itemsRead: meter.itemsScanned(),
    });
    if (pages.length > 100) throw new Error('get-bulk kept answering a next_cursor');
  } while (cursor);
  return pages;
}

describe('POST /license/get-bulk over an app of 3000 licenses', () => {
  const rare = () => licenses.filter((_, index) => rareAt.includes(index));

  it.each([
    ['newest first', 'desc', 25],
    ['oldest first', 'asc', 25],
    ['newest first, two a page', 'desc', 2],
    ['oldest first, three a page', 'asc', 3],
  ])('finds each of a handful of matches exactly once, %s, no request reading more than the bound', async (_case, sortOrder, perPage) => {
    const pages = await pageThrough({ tag: 'rare', sort_order: sortOrder, per_page: perPage });

    const expected = sortOrder === 'asc' ? rare() : rare().reverse();
    expect(pages.flatMap((page) => page.keys)).toEqual(keysOf(expected));
    for (const page of pages) {
      expect(page.itemsRead).toBeLessThanOrEqual(maxItemsReadPerList);
      expect(page.keys.length).toBeLessThanOrEqual(perPage);
    }
    expect(pages.at(-1)!.nextCursor).toBeNull();
  });

  it('answers a short page with a next_cursor when the read bound is reached before the page is full', async () => {
    const pages = await pageThrough({ tag: 'rare', per_page: 25 });

    expect(pages.map((page) => page.keys.length)).toEqual([8, 2]);
    expect(pages[0]!.itemsRead).toBe(maxItemsReadPerList);
    expect(pages[0]!.nextCursor).not.toBeNull();
  });

  it('still fills every page but the last to per_page when the filter matches often', async () => {
    const pages = await pageThrough({ tag: 'common', per_page: 100, subscription_id: tiers[0]!.subscription_id, sort_order: 'asc' });

    const expected = licenses.filter((license, index) => license.subscription_id === tiers[0]!.subscription_id && !rareAt.includes(index));
    expect(pages.flatMap((page) => page.keys)).toEqual(keysOf(expected));
    expect(pages.slice(0, -1).every((page) => page.keys.length === 100)).toBe(true);
  });

  it('reads each subscription a page shows once per request, in one batch, and none it does not show', async () => {
    meter.reset();
    subscriptionReads.reset();
    const response = await env.post('/license/get-bulk', { app_id: owner.app_id, per_page: 100, sort_order: 'asc' }, owner.auth);

    expect(response.status).toBe(200);
    expect(subscriptionReads.byId()).toEqual(new Map(tiers.map((tier) => [tier.subscription_id, 1])));
    // One batch for the page's licenses (the index holds their keys and filtered fields only), one for their subscriptions.
    expect(meter.counts().BatchGetItemCommand).toBe(2);
    expect(response.body.data.slice(0, 3).map((record: any) => [record.subscription_name, record.subscription_level])).toEqual([
      ['Gold', 3],
      ['Silver', 2],
      ['Bronze', 1],
    ]);
  });

  it('reads the filter’s subscription once per request, for the ownership check and the page alike', async () => {
    subscriptionReads.reset();
    const response = await env.post('/license/get-bulk', { app_id: owner.app_id, subscription_id: tiers[1]!.subscription_id, per_page: 50 }, owner.auth);

    expect(response.status).toBe(200);
    expect(response.body.data).toHaveLength(50);
    expect(response.body.data.every((record: any) => record.subscription_name === 'Silver')).toBe(true);
    expect(subscriptionReads.byId()).toEqual(new Map([[tiers[1]!.subscription_id, 1]]));
  });
});

describe('the get-bulk cursor', () => {
  const firstCursor = async (as: Owner, appId: string) => {
    const response = await env.post('/license/get-bulk', { app_id: appId, per_page: 1 }, as.auth);
    expect(response.body.next_cursor).toEqual(expect.any(String));
    return response.body.next_cursor as string;
  };

  it('answers 400 naming cursor when it was issued for another app of the same owner', async () => {
    const { app_id } = await createApp(env.deps, { teamId: owner.team_id });
    const cursor = await firstCursor(owner, owner.app_id);

    const response = await env.post('/license/get-bulk', { app_id, cursor }, owner.auth);

    expect(response.status).toBe(400);
    expect(response.body.error_code).toBe('INVALID_INPUT');
    expect(response.body.error.startsWith('cursor: ')).toBe(true);
  });

  it('does not let another owner read this app with a cursor of this app, nor use it on their own app', async () => {
    const intruder = await createOwner(env.deps);
    const cursor = await firstCursor(owner, owner.app_id);

    const onVictimApp = await env.post('/license/get-bulk', { app_id: owner.app_id, cursor }, intruder.auth);
    const onOwnApp = await env.post('/license/get-bulk', { app_id: intruder.app_id, cursor }, intruder.auth);

    expect(onVictimApp.status).toBe(403);
    expect(onVictimApp.body.error_code).toBe('ACCESS_DENIED');
    expect(onOwnApp.status).toBe(400);
    expect(onOwnApp.body.error_code).toBe('INVALID_INPUT');
  });

  const forge = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

  it.each([
    ['names another app', () => forge(['5b0c3a52-8f3e-4c8e-9b7e-000000000000', '2026-01-01T00:00:00.000Z', 'AAAAA'])],
    ['has a key DynamoDB keys could not hold', () => forge([owner.app_id, '2026-01-01T00:00:00.000Z', 'A#B'])],
    ['has no valid time', () => forge([owner.app_id, 'yesterday', 'AAAAA'])],
    ['has fields of the wrong type', () => forge([owner.app_id, 1, null])],
    ['is the old two-field shape', () => forge(['2026-01-01T00:00:00.000Z', 'AAAAA'])],
    ['is not JSON', () => Buffer.from('[', 'utf8').toString('base64url')],
  ])('answers 400 INVALID_INPUT, never 500, for a forged cursor that %s', async (_case, cursor) => {
    const response = await env.post('/license/get-bulk', { app_id: owner.app_id, cursor: cursor() }, owner.auth);
    expect(response.status).toBe(400);
    expect(response.body.error.startsWith('cursor: ')).toBe(true);
  });

  it('resumes a well-formed cursor at its position even if no license sits there', async () => {
    const cursor = forge([owner.app_id, licenses[2999]!.created_at, 'ZZZZZ-NOT-A-KEY']);

    const response = await env.post('/license/get-bulk', { app_id: owner.app_id, sort_order: 'asc', per_page: 5, cursor }, owner.auth);

    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([]);
    expect(response.body.next_cursor).toBeNull();
  });
});
