import type { EventSink } from '../../functions/events/consumer';
import { loseAnswers } from '../support/dynamo-faults';
import { startTestEvents, type TestEvents } from '../support/events';
import { startTestServer, type TestServer } from '../support/env';
import { seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';
import * as events from '#data/events.repo';

let env: TestServer;
let owner: Owner;
const running: TestEvents[] = [];

beforeAll(async () => {
  env = await startTestServer();
  owner = await createOwner(env.deps);
});
afterAll(async () => {
  for (const consumer of running) await consumer.stop();
  await env.close();
});

async function consumer(sink?: EventSink, refuse?: Parameters<typeof startTestEvents>[2]): ReturnType<typeof startTestEvents> {
  const started = await startTestEvents(env, sink, refuse);
  running.push(started);
  return started;
}

/** Creates licenses through the API and activates each once: `count` created, activated and logins. */
async function scriptedChanges(count: number): Promise<string[]> {
  const subscription = await seedSubscription(env.deps, owner);
  const created = await env.post(
    '/license/create-bulk',
    { key_amount: count, app_id: owner.app_id, subscription_id: subscription.subscription_id, duration_unit: 'days', duration_value: 1, hwid_lock: false, tags: [] },
    owner.auth,
  );
  const keys: string[] = created.body.data.map((license: { key: string }) => license.key);
  for (const key of keys) expect((await env.post('/auth', { app_id: owner.app_id, license: key })).status).toBe(200);
  return keys;
}

const today = () => new Date().toISOString().slice(0, 10);

async function stored() {
  const days = await events.days(env.deps.table, owner.app_id, today(), today());
  const audit = await events.listAudit(env.deps.table, owner.app_id, { limit: 100 });
  const totals = await events.licenseTotals(env.deps.table, owner.app_id, new Date());
  return { counters: days.get(today()), totals, auditIds: audit.events.map((event) => event.id).sort() };
}

describe('a redelivered stream batch', () => {
  it('changes no counter twice and writes no audit item twice, whether the batch failed late or is read again whole', async () => {
    let failures = 0;
    const flaky: EventSink = {
      deliver: async () => {
        // The audit items and counters of the step are written by now: delivery fails after them, as a refused PutEvents would.
        if (failures++ === 0) throw new Error('bus unavailable');
      },
    };
    const first = await consumer(flaky);
    await scriptedChanges(3);
    await first.drain();
    // The failed step is done again record by record: one delivery for each of its 8 records that announce an event.
    expect(failures).toBe(1 + 8);

    const once = await stored();
    expect(once.counters).toMatchObject({ created: 3, activated: 3, logins: 3 });
    expect(once.totals).toEqual({ licenses: 3, active: 3, paused: 0, expired: 0, unused: 0 });
    // The application, the subscription, then each license created and activated.
    expect(once.auditIds).toHaveLength(8);
    // The failed step's events were delivered again, with the same ids.
    expect(new Set(first.delivered.map((event) => event.id))).toEqual(new Set(once.auditIds));

    // A second consumer reads the whole stream again from its start: every record is a redelivery.
    const again = await consumer();
    await again.drain();
    expect(again.delivered.map((event) => event.id).sort()).toEqual(once.auditIds);
    expect(await stored()).toEqual(once);
  });

  it('applies a transaction once when its answer was lost and the SDK sent it again', async () => {
    const before = await stored();
    const lossy = await consumer();
    await lossy.drain();
    // Every transaction's first attempt (the API's and the consumer's alike) loses its answer; the SDK's second attempt gets one.
    const lost = loseAnswers(env.client, 'TransactWriteItemsCommand', (attempt) => attempt % 2 === 1);
    await scriptedChanges(2);
    await lossy.drain();
    env.client.middlewareStack.remove('loseAnswers:TransactWriteItemsCommand');
    expect(lost.lost()).toBeGreaterThan(3);
    const after = await stored();
    expect(after.counters).toMatchObject({
      created: before.counters!.created + 2,
      activated: before.counters!.activated + 2,
      logins: before.counters!.logins + 2,
    });
    expect(after.totals).toEqual({ ...before.totals, licenses: before.totals.licenses + 2, active: before.totals.active + 2 });
    expect(after.auditIds).toHaveLength(before.auditIds.length + 5);
  });
});

describe('events EventBridge keeps refusing', () => {
  it('go to the dead-letter queue with nothing else lost, the accepted ones delivered once', async () => {
    const keys = await scriptedChanges(2);
    const refused = (entry: { Detail?: string }) => (entry.Detail ?? '').includes(keys[0]!);
    const events = await consumer(undefined, refused);
    await events.drain();
    const refusedEvents = events.delivered.filter((event) => JSON.stringify(event).includes(keys[0]!));
    expect(refusedEvents.length).toBeGreaterThan(0);
    expect(events.deadLettered.map((event) => event.id).sort()).toEqual(refusedEvents.map((event) => event.id).sort());
  });
});
