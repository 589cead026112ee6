import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { hashPassword } from '#core/domain/passwords';
import { keys } from '#data/keys';
import { createFakeClock } from '../support/clock';
import { meterDynamo } from '../../local/ddb-meter';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { madeBeforeAll, withOwner } from '../support/owners';
import * as credentials from '#data/credentials.repo';

// The cache is on (5 s); each test starts cold by moving the clock past the TTL.
const clock = createFakeClock();
const { env, owner } = withOwner({ clock, config: { cacheTtlSeconds: 5 } });
const subscription = madeBeforeAll(() => seedSubscription(env.deps, owner));
const calls = madeBeforeAll(async () => meterDynamo(env.client));

beforeEach(() => clock.advance(60));

async function measured(body: Record<string, unknown>) {
  calls.reset();
  const response = await env.post('/auth', { app_id: owner.app_id, ...body });
  return { response, counts: calls.counts(), total: calls.total(), writes: calls.writes(), readUnits: calls.readUnits(), writeUnits: calls.writeUnits() };
}

describe('the /auth hot path', () => {
  it('costs 3 round trips cold by license key: two batched reads and one write', async () => {
    const key = (await seedLicense(env.deps, subscription)).key;
    const cold = await measured({ license: key });
    expect(cold.response.body.success).toBe(true);
    // A first use is a one-item transaction, so that a resent attempt cannot answer USED_* to its own write.
    expect(cold.counts).toEqual({ BatchGetItemCommand: 2, TransactWriteItemsCommand: 1 });
  });

  it('records a later use with a plain update', async () => {
    const key = (await seedLicense(env.deps, subscription)).key;
    await measured({ license: key });
    clock.advance(60);
    const later = await measured({ license: key });
    expect(later.response.body.message).toBe('LICENSE_VERIFIED_USED_AND_UNLOCKED_KEY');
    expect(later.counts).toEqual({ BatchGetItemCommand: 2, UpdateItemCommand: 1 });
  });

  it('costs 2 round trips warm: app, team and subscription come from the cache', async () => {
    const [first, second] = [await seedLicense(env.deps, subscription), await seedLicense(env.deps, subscription)];
    await measured({ license: first.key });
    const warm = await measured({ license: second.key });
    expect(warm.response.body.message).toBe('LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY');
    expect(warm.counts).toEqual({ BatchGetItemCommand: 1, TransactWriteItemsCommand: 1 });
  });

  it('reports the capacity DynamoDB consumed: reads for the batched gets, one write for the use', async () => {
    const key = (await seedLicense(env.deps, subscription)).key;
    const cold = await measured({ license: key });
    const warm = await measured({ license: key });
    expect(warm.writeUnits).toBe(1);
    expect(warm.readUnits).toBeGreaterThan(0);
    expect(cold.readUnits).toBeGreaterThan(warm.readUnits);
  });

  it('reads the cached items again once the TTL has passed', async () => {
    const key = (await seedLicense(env.deps, subscription)).key;
    await measured({ license: key });
    clock.advance(5);
    expect((await measured({ license: key })).total).toBe(3);
  });

  it('writes exactly once per successful /auth, first use, later use and HWID binding alike', async () => {
    const single = await seedSubscription(env.deps, owner, { single_key_per_hwid: true });
    const locked = await seedLicense(env.deps, single, { hwid_lock: true });
    const bind = await measured({ license: locked.key, hwid: 'device-1' });
    expect(bind.response.body.success).toBe(true);
    expect(bind.counts.TransactWriteItemsCommand).toBe(1);
    expect(bind.writes).toBe(1);

    const again = await measured({ license: locked.key, hwid: 'device-1' });
    expect(again.response.body.message).toBe('LICENSE_VERIFIED_USED_AND_LOCKED_KEY');
    expect(again.writes).toBe(1);
  });

  it('keeps a license with several seats at 2 round trips warm and one plain update, for its oldest and a later device', async () => {
    const single = await seedSubscription(env.deps, owner, { single_key_per_hwid: true });
    const seats = await seedLicense(env.deps, single, { hwid_lock: true, max_devices: 3 });
    await measured({ license: seats.key, hwid: 'seat-1' });
    const bindSecond = await measured({ license: seats.key, hwid: 'seat-2' });
    expect(bindSecond.counts).toEqual({ BatchGetItemCommand: 1, TransactWriteItemsCommand: 1 });

    for (const hwid of ['seat-1', 'seat-2']) {
      const warm = await measured({ license: seats.key, hwid });
      expect(warm.response.body.message).toBe('LICENSE_VERIFIED_USED_AND_LOCKED_KEY');
      expect(warm.counts).toEqual({ BatchGetItemCommand: 1, UpdateItemCommand: 1 });
      expect(warm.writeUnits).toBe(1);
    }
  });

  it('writes nothing for a failed /auth', async () => {
    const locked = await seedLicense(env.deps, subscription, { hwid_lock: true });
    const failed = await measured({ license: locked.key });
    expect(failed.response.body.message).toBe('HWID_NOT_PROVIDED');
    expect(failed.writes).toBe(0);
    expect((await measured({ license: 'NO-SUCH-KEY' })).counts).toEqual({ BatchGetItemCommand: 1 });
  });

  it('answers an unknown application after one read, signing on: the answer layer does not read the missing application again', async () => {
    expect(env.config.signAnswers).toBe(true);
    calls.reset();
    const response = await env.post('/auth', { app_id: '0c3e7bb4-5d6f-4f3e-9d7e-3b2a1c0d9e8f', license: 'NO-SUCH-KEY' });
    expect(response.body).toEqual({ success: false, message: 'INVALID_APP_ID' });
    expect(calls.counts()).toEqual({ BatchGetItemCommand: 1 });
  });

  it('costs one more read by username, as the license is known only after the password check', async () => {
    const license = await seedLicense(env.deps, subscription);
    await credentials.set(env.deps.table, license, 'hot-path-user', await hashPassword('password-1', 4));
    const cold = await measured({ username: 'hot-path-user', password: 'password-1' });
    expect(cold.response.body.success).toBe(true);
    expect(cold.counts).toEqual({ BatchGetItemCommand: 3, TransactWriteItemsCommand: 1 });
    const warm = await measured({ username: 'hot-path-user', password: 'password-1' });
    expect(warm.counts).toEqual({ BatchGetItemCommand: 2, UpdateItemCommand: 1 });
  });

  it('never serves a license from the cache: a pause takes effect at once', async () => {
    const license = await seedLicense(env.deps, subscription);
    expect((await measured({ license: license.key })).response.body.success).toBe(true);
    await env.deps.table.doc.send(
      new UpdateCommand({
        TableName: env.deps.table.name,
        Key: keys.license(license.key),
        UpdateExpression: 'SET #status = :paused',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':paused': 'paused' },
      }),
    );
    expect((await measured({ license: license.key })).response.body.message).toBe('LICENSE_NOT_ACTIVE');
  });
});
