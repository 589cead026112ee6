import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#data/keys';
import * as apps from '#data/app.repo';
import * as migrations from '#data/migrations';
import { trialSecretsMigration } from '#data/model/trial';
import { migrateTrialSecrets } from '../../functions/admin/maintenance';
import { createFakeClock } from '../support/clock';
import { startTestEvents, type TestEvents } from '../support/events';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { scanAll } from '../support/invariants';
import { meterDynamo } from '../../local/ddb-meter';
import { createOwner, madeBeforeAll, withOwner, type Owner } from '../support/owners';

/**
 * What a resumed trial costs when the container is warm (docs/client-api.md#post-trial: what /auth
 * costs), and the application's trial secret that makes it so. The cache is on (5 s); each test
 * starts cold by moving the clock past its TTL.
 */
const clock = createFakeClock(new Date('2026-05-04T10:00:00.000Z'));
const { env } = withOwner({ clock, config: { cacheTtlSeconds: 5 } });
const calls = madeBeforeAll(async () => meterDynamo(env.client));
const day = 86400;
const generatedKey = /^[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){4}$/;
let events: TestEvents;
beforeAll(async () => {
  events = await startTestEvents(env);
});
afterAll(() => events?.stop());
beforeEach(() => clock.advance(60));

let devices = 0;
const newDevice = () => `trial-hot-device-${++devices}`;

async function trialApp(): Promise<Owner> {
  const owner = await createOwner(env.deps);
  const tier = await seedSubscription(env.deps, owner, { name: 'Trial', level: 1 });
  const trial = { subscription_id: tier.subscription_id, duration_seconds: 14 * day, per_ip_per_day: 1000 };
  expect((await env.post('/app/settings', { app_id: owner.app_id, trial }, owner.auth)).status).toBe(200);
  return owner;
}

async function measured(path: string, body: Record<string, unknown>) {
  calls.reset();
  const response = await env.post(path, body);
  return { body: response.body, counts: calls.counts(), readUnits: calls.readUnits(), writeUnits: calls.writeUnits() };
}

describe('a resumed trial, warm', () => {
  it('costs what /auth by key costs: one batched read and one update, the same read and write units', async () => {
    const owner = await trialApp();
    const device = newDevice();
    const started = await measured('/trial', { app_id: owner.app_id, hwid: device });
    expect(started.body.message).toBe('TRIAL_STARTED');
    const license = (await seedLicense(env.deps, await seedSubscription(env.deps, owner), { hwid_lock: true })).key;
    await measured('/auth', { app_id: owner.app_id, license, hwid: device });
    clock.advance(1);

    const resumed = await measured('/trial', { app_id: owner.app_id, hwid: device });
    const auth = await measured('/auth', { app_id: owner.app_id, license, hwid: device });

    expect(resumed.body).toMatchObject({ success: true, message: 'TRIAL_RESUMED', data: { license: started.body.data.license } });
    expect(auth.body.message).toBe('LICENSE_VERIFIED_USED_AND_LOCKED_KEY');
    expect(resumed.counts).toEqual({ BatchGetItemCommand: 1, UpdateItemCommand: 1 });
    expect(resumed.counts).toEqual(auth.counts);
    expect([resumed.readUnits, resumed.writeUnits]).toEqual([auth.readUnits, auth.writeUnits]);
  });

  it('answers as a cold container does: TRIAL_EXPIRED with its end once the owner deleted the license, TRIAL_CONVERTED once bought, and no second trial', async () => {
    const owner = await trialApp();
    const [deleted, bought] = [newDevice(), newDevice()];
    const first = await measured('/trial', { app_id: owner.app_id, hwid: deleted });
    const second = await measured('/trial', { app_id: owner.app_id, hwid: bought });
    expect(await env.post('/license/delete', { license_key: first.body.data.license }, owner.auth)).toMatchObject({ status: 200 });
    // As a purchase converts it (docs/stripe.md): the tag trial gone.
    const converted = { ':tags': ['stripe', 'trial-converted'] };
    await env.deps.table.doc.send(new UpdateCommand({ TableName: env.deps.table.name, Key: keys.license(second.body.data.license), UpdateExpression: 'SET tags = :tags', ExpressionAttributeValues: converted }));
    clock.advance(1);

    const afterDelete = await measured('/trial', { app_id: owner.app_id, hwid: deleted });
    expect(afterDelete.body).toEqual({ success: false, message: 'TRIAL_EXPIRED', data: { expires_at: first.body.data.expires_at } });
    expect(afterDelete.counts.TransactWriteItemsCommand).toBeUndefined();
    expect((await measured('/trial', { app_id: owner.app_id, hwid: bought })).body).toEqual({ success: false, message: 'TRIAL_CONVERTED' });
    clock.advance(60);
    expect((await measured('/trial', { app_id: owner.app_id, hwid: deleted })).body.message).toBe('TRIAL_EXPIRED');
  });
});

describe('the application’s trial secret', () => {
  it('names each device’s trial key: the shape of a generated key, the same for the same device, another in another application', async () => {
    const [one, two] = [await trialApp(), await trialApp()];
    const device = newDevice();
    const inOne = (await measured('/trial', { app_id: one.app_id, hwid: device })).body.data.license as string;
    const inTwo = (await measured('/trial', { app_id: two.app_id, hwid: device })).body.data.license as string;
    const other = (await measured('/trial', { app_id: one.app_id, hwid: newDevice() })).body.data.license as string;

    expect([inOne, inTwo, other].every((key) => generatedKey.test(key))).toBe(true);
    expect(new Set([inOne, inTwo, other]).size).toBe(3);
    expect((await measured('/trial', { app_id: one.app_id, hwid: device })).body.data.license).toBe(inOne);
  });

  it('is set once, kept when trials are set again, switched off and on, and is in no answer, event or other item', async () => {
    const owner = await trialApp();
    const secret = (await apps.get(env.deps.table, owner.app_id))!.trial_secret!;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const again = await env.post('/app/settings', { app_id: owner.app_id, trial: null }, owner.auth);
    expect(again.body.data.trial).toBeNull();
    const tier = await seedSubscription(env.deps, owner, { name: 'Trial 2', level: 1 });
    const answers = [
      again,
      await env.post('/app/settings', { app_id: owner.app_id, trial: { subscription_id: tier.subscription_id, duration_seconds: 3600 } }, owner.auth),
      await env.post('/app/list', {}, owner.auth),
    ];
    await measured('/trial', { app_id: owner.app_id, hwid: newDevice() });
    await events.drain();

    expect((await apps.get(env.deps.table, owner.app_id))!.trial_secret).toBe(secret);
    expect(answers.map((answer) => JSON.stringify(answer.body)).join('\n')).not.toContain(secret);
    expect(JSON.stringify(events.delivered)).not.toContain(secret);
    expect(events.delivered.filter((event) => event.subject === owner.app_id).map((event) => event.type)).not.toContain('app.updated');
    const holding = (await scanAll(env.deps.table)).filter((item) => JSON.stringify(item).includes(secret));
    expect(holding.map((item) => [item.pk, item.sk])).toEqual([[keys.app(owner.app_id).pk, keys.app(owner.app_id).sk]]);
  });

  it('comes to an application whose trials were set before it existed with the next trial setting; the trials begun before keep their keys and resume', async () => {
    const owner = await trialApp();
    await env.deps.table.doc.send(new UpdateCommand({ TableName: env.deps.table.name, Key: keys.app(owner.app_id), UpdateExpression: 'REMOVE trial_secret' }));
    clock.advance(60);
    const earlier = newDevice();
    const begun = (await measured('/trial', { app_id: owner.app_id, hwid: earlier })).body.data.license as string;
    clock.advance(1);
    expect((await measured('/trial', { app_id: owner.app_id, hwid: earlier })).counts).toEqual({ BatchGetItemCommand: 2, UpdateItemCommand: 1 });

    const { trial } = (await env.post('/app/settings', { app_id: owner.app_id }, owner.auth)).body.data;
    expect((await env.post('/app/settings', { app_id: owner.app_id, trial }, owner.auth)).status).toBe(200);
    expect((await apps.get(env.deps.table, owner.app_id))!.trial_secret).toBeDefined();
    clock.advance(60);
    const later = newDevice();
    const made = (await measured('/trial', { app_id: owner.app_id, hwid: later })).body.data.license;
    clock.advance(1);

    const resumedEarlier = await measured('/trial', { app_id: owner.app_id, hwid: earlier });
    expect(resumedEarlier.body).toMatchObject({ message: 'TRIAL_RESUMED', data: { license: begun } });
    const resumedLater = await measured('/trial', { app_id: owner.app_id, hwid: later });
    expect(resumedLater.body).toMatchObject({ message: 'TRIAL_RESUMED', data: { license: made } });
    expect(resumedLater.counts).toEqual({ BatchGetItemCommand: 1, UpdateItemCommand: 1 });
  });

  it('comes from `admin migrate trial-secrets` to each application with trials and no secret, once, with no event; an application without trials gets none', async () => {
    const [earlier, noTrials] = [await trialApp(), await createOwner(env.deps)];
    await env.deps.table.doc.send(new UpdateCommand({ TableName: env.deps.table.name, Key: keys.app(earlier.app_id), UpdateExpression: 'REMOVE trial_secret' }));
    await events.drain();
    const before = events.delivered.length;

    expect((await migrateTrialSecrets(env.deps)).apps).toBeGreaterThanOrEqual(1);
    expect(await migrateTrialSecrets(env.deps)).toEqual({ apps: 0 });
    expect(await migrations.hasRun(env.deps.table, trialSecretsMigration)).toBe(true);
    await events.drain();

    expect((await apps.get(env.deps.table, earlier.app_id))!.trial_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await apps.get(env.deps.table, noTrials.app_id))!.trial_secret).toBeUndefined();
    expect(events.delivered.slice(before).filter((event) => event.subject === earlier.app_id)).toEqual([]);
    clock.advance(60);
    const device = newDevice();
    await measured('/trial', { app_id: earlier.app_id, hwid: device });
    clock.advance(1);
    expect((await measured('/trial', { app_id: earlier.app_id, hwid: device })).counts).toEqual({ BatchGetItemCommand: 1, UpdateItemCommand: 1 });
  });
});
