import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#data/keys';
import * as lookups from '#data/lookup.repo';
import { maxLicensesPerEmail } from '#data/model/lookup';
import { createFakeClock } from '../support/clock';
import { startTestEvents, type TestEvents } from '../support/events';
import { startTestServer, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';
import type { License } from '#data/model/license';
import type { Subscription } from '#data/model/subscription';

const clock = createFakeClock(new Date('2026-03-10T12:00:00.000Z'));
let env: TestServer;
let events: TestEvents;
let owner: Owner;
let subscription: Subscription;

beforeAll(async () => {
  env = await startTestServer({ clock, config: { cacheTtlSeconds: 0 } });
  events = await startTestEvents(env);
  owner = await createOwner(env.deps);
  subscription = await seedSubscription(env.deps, owner);
});
afterAll(async () => {
  await events.stop();
  await env.close();
});

/** The keys of the licenses the email's lookup entries name, as `licensesWithEmail` reads them. */
async function withEmail(email: string, appId = owner.app_id): Promise<string[]> {
  const found = await lookups.licensesWithEmail(env.deps.table, appId, email);
  return found.map((key) => key.pk).sort();
}

/** Sets or removes a license item's email as a write of the license would, past every route. */
async function storeEmail(license: License, email: string | null): Promise<void> {
  await env.deps.table.doc.send(
    new UpdateCommand({
      TableName: env.deps.table.name,
      Key: keys.licenseOf(license),
      ...(email === null ? { UpdateExpression: 'REMOVE email' } : { UpdateExpression: 'SET email = :email', ExpressionAttributeValues: { ':email': email } }),
    }),
  );
}

describe('lookup entries by email', () => {
  it('follow a license\'s email through its creation, change, removal and deletion', async () => {
    const first = await seedLicense(env.deps, subscription, { email: 'ann@example.com' });
    const second = await seedLicense(env.deps, subscription, { email: 'ann@example.com' });
    const unrelated = await seedLicense(env.deps, subscription);
    await events.drain();
    expect(await withEmail('ann@example.com')).toEqual([keys.licenseOf(first).pk, keys.licenseOf(second).pk].sort());
    // The entries are the application's: another application's lookup of the same address finds none of them.
    expect(await withEmail('ann@example.com', (await createOwner(env.deps)).app_id)).toEqual([]);

    await storeEmail(first, 'bob@example.com');
    await storeEmail(unrelated, 'bob@example.com');
    await events.drain();
    expect(await withEmail('ann@example.com')).toEqual([keys.licenseOf(second).pk]);
    expect(await withEmail('bob@example.com')).toEqual([keys.licenseOf(first).pk, keys.licenseOf(unrelated).pk].sort());

    await storeEmail(unrelated, null);
    expect((await env.post('/license/delete', { license_key: first.key }, owner.auth)).status).toBe(200);
    await events.drain();
    expect(await withEmail('bob@example.com')).toEqual([]);
    expect(await withEmail('ann@example.com')).toEqual([keys.licenseOf(second).pk]);
  });

  it('reads at most maxLicensesPerEmail licenses of one address with one query', async () => {
    const many = await Promise.all(Array.from({ length: maxLicensesPerEmail + 3 }, () => seedLicense(env.deps, subscription, { email: 'many@example.com' })));
    await events.drain();
    const stored = await env.deps.table.doc.send(
      new QueryCommand({ TableName: env.deps.table.name, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.licensesOfEmail(owner.app_id, 'many@example.com') } }),
    );
    expect(stored.Items).toHaveLength(many.length);
    const found = await withEmail('many@example.com');
    expect(found).toHaveLength(maxLicensesPerEmail);
    expect(found.every((pk) => many.some((license) => keys.licenseOf(license).pk === pk))).toBe(true);
  });
});
