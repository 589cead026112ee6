import { meterDynamo } from '../../local/ddb-meter';
import { createFakeClock } from '../support/clock';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { madeBeforeAll, withOwner } from '../support/owners';

/** What one /usage costs DynamoDB, cold and warm (docs/licensing-models.md, "Metered usage"), counted call by call. */
const clock = createFakeClock();
const { env, owner } = withOwner({ clock, config: { cacheTtlSeconds: 5 } });
const metered = madeBeforeAll(() => seedSubscription(env.deps, owner, { usage_limits: { exports: { limit: 1000, period: 'month', overage: 0 } } }));
const calls = madeBeforeAll(async () => meterDynamo(env.client));

const usedLicense = () =>
  seedLicense(env.deps, metered, { first_used_at: clock.now().toISOString(), expires_at: new Date(clock.now().getTime() + 86400_000).toISOString() });

async function measured(body: Record<string, unknown>) {
  calls.reset();
  const response = await env.post('/usage', { app_id: owner.app_id, counter: 'exports', ...body });
  expect(response.body.message).toBe('USAGE_RECORDED');
  return { counts: calls.counts(), writes: calls.writes(), writeUnits: calls.writeUnits() };
}

describe('the /usage hot path', () => {
  it('costs 2 round trips and one plain update warm without a usage_id, 3 cold', async () => {
    clock.advance(60);
    const license = await usedLicense();
    expect((await measured({ license: license.key })).counts).toEqual({ BatchGetItemCommand: 2, UpdateItemCommand: 1 });
    const warm = await measured({ license: license.key });
    expect(warm.counts).toEqual({ BatchGetItemCommand: 1, UpdateItemCommand: 1 });
    // The same write capacity as the update of a later /auth on the same license.
    calls.reset();
    expect((await env.post('/auth', { app_id: owner.app_id, license: license.key })).body.success).toBe(true);
    expect(warm.writeUnits).toBe(calls.writeUnits());
  });

  it('costs 2 round trips and one transaction warm with a usage_id', async () => {
    const license = await usedLicense();
    await measured({ license: license.key });
    const warm = await measured({ license: license.key, usage_id: 'hot-path-0001' });
    expect(warm.counts).toEqual({ BatchGetItemCommand: 1, TransactWriteItemsCommand: 1 });
    expect(warm.writes).toBe(1);
  });

  it('starts a counter in a new period with the same one update', async () => {
    const license = await seedLicense(env.deps, metered, { first_used_at: clock.now().toISOString(), expires_at: new Date(clock.now().getTime() + 62 * 86400_000).toISOString() });
    await measured({ license: license.key });
    clock.set(new Date(Date.UTC(clock.now().getUTCFullYear(), clock.now().getUTCMonth() + 1, 1)));
    const nextMonth = await measured({ license: license.key });
    expect(nextMonth.counts.UpdateItemCommand).toBe(1);
    expect(nextMonth.writes).toBe(1);
  });
});
