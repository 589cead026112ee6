import { createFakeClock } from '../support/clock';
import { meterDynamo } from '../../local/ddb-meter';
import { seedSubscription } from '../support/fixtures';
import { madeBeforeAll, withOwner } from '../support/owners';

/**
 * What each write route costs in DynamoDB capacity, as DynamoDB Local reports it
 * (docs/performance.md, "Write routes"): the floors the data layout allows,
 * pinned so that a change that adds an index copy or a read fails here.
 */
const clock = createFakeClock(new Date('2026-03-10T12:00:00.000Z'));
const { env, owner } = withOwner({ clock, config: { cacheTtlSeconds: 60 } });
const subscription = madeBeforeAll(() => seedSubscription(env.deps, owner));
const meter = madeBeforeAll(async () => meterDynamo(env.client));

async function units(send: () => Promise<{ status: number }>) {
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
  it('costs each write route the units of the item it changes, and no index copy /auth or an extension does not need', async () => {
    const [warmed] = await createKeys(1);
    await env.post('/auth', { app_id: owner.app_id, license: warmed });
    clock.advance(1);
    const [toRegister] = await createKeys(1);
    const bulk = await createKeys(10);
    const measured = {
      // A later use: the license item alone, 1 unit (gsi2 copies no field /auth writes).
      auth_warm: await units(() => env.post('/auth', { app_id: owner.app_id, license: warmed })),
      register: await units(() => env.post('/register', { app_id: owner.app_id, license: toRegister, username: 'someone', password: 'a long password' })),
      // The item and its listing entry.
      create: await units(() =>
        env.post('/license/create', { app_id: owner.app_id, subscription_id: subscription.subscription_id, duration_unit: 'days', duration_value: 30 }, owner.auth),
      ),
      extend: await units(() => env.post('/license/extend', { license_key: warmed, extend_seconds: 60 }, owner.auth)),
      extend_bulk: await units(() => env.post('/license/extend-bulk', { license_keys: bulk, extend_seconds: 60 }, owner.auth)),
      // The status is a field listings filter on: the item and its listing entry.
      update_status: await units(() => env.post('/license/update-status', { license_key: warmed, status: 'paused' }, owner.auth)),
      update_status_bulk: await units(() => env.post('/license/update-status-bulk', { license_keys: bulk, status: 'paused' }, owner.auth)),
    };
    // DynamoDB Local reports a transaction's write units as those of one of its items (docs/performance.md, "Write routes").
    expect(measured).toEqual({
      auth_warm: { read: 0.5, write: 1, roundTrips: 2 },
      register: { read: 0.5, write: 2, roundTrips: 2 },
      create: { read: 1.5, write: 2, roundTrips: 4 },
      extend: { read: 1.5, write: 2, roundTrips: 4 },
      extend_bulk: { read: 5.5, write: 2, roundTrips: 3 },
      update_status: { read: 1, write: 2, roundTrips: 3 },
      update_status_bulk: { read: 0.5, write: 20, roundTrips: 11 },
    });
  });
});
