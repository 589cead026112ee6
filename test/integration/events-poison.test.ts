import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#data/keys';
import type { ServiceEvent } from '../../functions/events/derive';
import { attemptsPerRecord, startLocalEventStream } from '../../local/event-stream';
import { startTestEvents } from '../support/events';
import { startTestServer, type TestServer } from '../support/env';
import { createOwner, type Owner } from '../support/owners';
import * as events from '#data/events.repo';

/**
 * A stream record the consumer can never do, between records it can: every
 * good record still arrives, and the bad one is logged as given up. The bad
 * record is a change to a subscription written by hand with a 220 KB name:
 * its event's audit item holds the name twice, before and after, which is
 * more than DynamoDB's 400 KB item limit, so its write fails every time.
 */
let env: TestServer;
let owner: Owner;

beforeAll(async () => {
  env = await startTestServer();
  owner = await createOwner(env.deps);
});
afterAll(() => env.close());

const hugeName = (letter: string) => letter.repeat(220_000);

async function createTier(name: string): Promise<string> {
  const response = await env.post('/subscription/create', { app_id: owner.app_id, name, level: 1 }, owner.auth);
  if (response.status !== 200) throw new Error(`creating ${name} answered ${response.status}`);
  return response.body.data.subscription_id;
}

const renameByHand = (subscriptionId: string, name: string) =>
  env.deps.table.doc.send(
    new UpdateCommand({ TableName: env.deps.table.name, Key: keys.subscription(subscriptionId), UpdateExpression: 'SET #name = :name', ExpressionAttributeNames: { '#name': 'name' }, ExpressionAttributeValues: { ':name': name } }),
  );

const createdTiers = (events: ServiceEvent[]) => events.filter((event) => event.type === 'subscription.created').map((event) => event.subject);
const givenUp = () => env.logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.message === 'stream record given up');

describe('a stream record that fails every time', () => {
  let before: string;
  let poisoned: string;
  let after: string;

  beforeAll(async () => {
    before = await createTier('Before');
    poisoned = await createTier('Poisoned');
    // The first rename's event holds the huge name once: it fits. The second holds it twice.
    await renameByHand(poisoned, hugeName('a'));
    await renameByHand(poisoned, hugeName('b'));
    after = await createTier('After');
  });

  it('is given up after its attempts, and every record before and after it is done', async () => {
    const consumer = await startTestEvents(env);
    try {
      await consumer.drain();
    } finally {
      await consumer.stop();
    }

    expect(createdTiers(consumer.delivered)).toEqual([before, poisoned, after]);
    const renames = consumer.delivered.filter((event) => event.type === 'subscription.changed' && event.subject === poisoned);
    expect(renames.map((event) => String(event.after?.name).slice(0, 1))).toEqual(['a']);
    const audit = await events.listAudit(env.deps.table, owner.app_id, { type: 'subscription.created', limit: 100 });
    expect(audit.events.map((event) => event.subject).sort()).toEqual([before, poisoned, after].sort());
    const [line] = givenUp();
    expect(line).toMatchObject({ level: 'error', event_name: 'MODIFY', attempts: attemptsPerRecord });
    expect(givenUp()).toHaveLength(1);
  });

  it('holds up the background loop of npm start only for its attempts, then the loop goes on', async () => {
    const delivered: ServiceEvent[] = [];
    const loop = await startLocalEventStream({
      client: env.client,
      endpoint: env.config.dynamodbEndpoint!,
      region: env.config.region,
      tableName: env.config.tableName,
      pollMs: 20,
      deps: { ...env.deps, sink: { deliver: async (events) => void delivered.push(...events) } },
    });
    try {
      // The loop pauses 20, 40, 80 and 160 ms between the attempts: the wait is bounded by what is checked, not by a time.
      while (!createdTiers(delivered).includes(after)) await new Promise((done) => setTimeout(done, 50));
    } finally {
      await loop.stop();
    }
    expect(createdTiers(delivered)).toEqual([before, poisoned, after]);
    expect(givenUp()).toHaveLength(2);
  });
});
