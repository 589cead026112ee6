import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#data/keys';
import { startTestServer, type TestServer } from '../support/env';
import { seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';
import { startReceiver, startTestDelivery, until, type Receiver, type TestDelivery } from '../support/webhooks';

let env: TestServer;
let delivery: TestDelivery;
let receiver: Receiver;

beforeAll(async () => {
  env = await startTestServer();
  // Waits a hundred-thousandth of the schedule's: a delivery's eight attempts take about 1.4 s.
  delivery = await startTestDelivery(env, { waitScale: 0.00001, attemptTimeoutMs: 300 });
  receiver = await startReceiver();
});
afterAll(async () => {
  await delivery.stop();
  await receiver.close();
  await env.close();
});
beforeEach(() => {
  receiver.received.length = 0;
  receiver.respond = (_request, response) => response.writeHead(204).end();
});

/** What the receiver got for one owner's application: tests share the receiver. */
const receivedFor = (owner: Owner) => receiver.received.filter((request) => JSON.parse(request.body).app_id === owner.app_id);

const create = (owner: Owner, body: Record<string, unknown> = {}) => env.post('/webhook/create', { app_id: owner.app_id, url: receiver.url, events: ['*'], ...body }, owner.auth);

async function setEndpointFields(webhookId: string, fields: Record<string, unknown>) {
  const names = Object.keys(fields);
  await env.deps.table.doc.send(
    new UpdateCommand({
      TableName: env.deps.table.name,
      Key: keys.webhook(webhookId),
      UpdateExpression: `SET ${names.map((_, index) => `#f${index} = :v${index}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((name, index) => [`#f${index}`, name])),
      ExpressionAttributeValues: Object.fromEntries(names.map((name, index) => [`:v${index}`, fields[name]])),
    }),
  );
}

describe('webhook routes', () => {
  it('refuses file:, ftp: and other URLs that can never be targets with a 400 naming url, on create and update', async () => {
    const owner = await createOwner(env.deps);
    for (const url of ['file:///etc/passwd', 'ftp://example.com/hook', 'not a url', 'http://169.254.169.254/latest/meta-data', 'http://10.0.0.8/hook']) {
      const answer = await create(owner, { url });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error_code: 'INVALID_INPUT', error: expect.stringMatching(/^url: /) });
    }
    const made = await create(owner);
    const update = await env.post('/webhook/update', { webhook_id: made.body.data.webhook_id, url: 'ftp://example.com/hook' }, owner.auth);
    expect(update.status).toBe(400);
    expect(update.body.error).toMatch(/^url: /);
  });

  it('answers a documented 400 for each malformed field', async () => {
    const owner = await createOwner(env.deps);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ events: [] }, /^events: /],
      [{ events: ['license.created', '*'] }, /^events: /],
      [{ events: ['license.nope'] }, /^events/],
      [{ events: ['license.created', 'license.created'] }, /^events: /],
      [{ description: 'x'.repeat(501) }, /^description: /],
      [{ url: `https://example.com/${'x'.repeat(2048)}` }, /^url: /],
    ];
    for (const [body, message] of cases) {
      const answer = await create(owner, body);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatch(message);
    }
    expect((await env.post('/webhook/deliveries', { webhook_id: 'nope' }, owner.auth)).body.error).toMatch(/^webhook_id: /);
    expect((await env.post('/webhook/redeliver', { delivery_id: 'nope' }, owner.auth)).body.error).toMatch(/^delivery_id: /);
  });

  it('keeps an application at 10 endpoints when 15 creations race', async () => {
    const owner = await createOwner(env.deps);
    // Endpoints of a type this test never causes, so they add no deliveries to the run.
    const answers = await Promise.all(Array.from({ length: 15 }, () => create(owner, { events: ['license.usage_reset'] })));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(10);
    expect(answers.filter((answer) => answer.status === 409).map((answer) => answer.body.error_code)).toEqual(Array(5).fill('WEBHOOK_LIMIT_REACHED'));
    expect((await env.post('/webhook/list', { app_id: owner.app_id }, owner.auth)).body.data).toHaveLength(10);
    const [first] = answers.filter((answer) => answer.status === 200);
    await env.post('/webhook/delete', { webhook_id: first!.body.data.webhook_id }, owner.auth);
    expect((await create(owner, { events: ['license.usage_reset'] })).status).toBe(200);
  });

  it('shows the secret only when it is made, and audits create, update, rotation and deletion without it', async () => {
    const owner = await createOwner(env.deps);
    const made = await create(owner, { description: 'CRM' });
    const webhookId = made.body.data.webhook_id;
    expect(made.body.data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(made.body.data.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    const listed = await env.post('/webhook/list', { app_id: owner.app_id }, owner.auth);
    expect(listed.body.data).toEqual([{ webhook_id: webhookId, url: receiver.url, events: ['*'], description: 'CRM', enabled: true, created_at: made.body.data.created_at }]);
    await env.post('/webhook/update', { webhook_id: webhookId, events: ['license.created'] }, owner.auth);
    const rotated = await env.post('/webhook/rotate-secret', { webhook_id: webhookId }, owner.auth);
    expect(rotated.body.data.secret).not.toBe(made.body.data.secret);
    await env.post('/webhook/delete', { webhook_id: webhookId }, owner.auth);
    await delivery.settle();
    const audit = await env.post('/audit/get-bulk', { app_id: owner.app_id }, owner.auth);
    const webhookEvents = audit.body.data.filter((event: { type: string }) => event.type.startsWith('webhook.'));
    expect(webhookEvents.map((event: { type: string }) => event.type)).toEqual(['webhook.deleted', 'webhook.secret_rotated', 'webhook.updated', 'webhook.created']);
    expect(webhookEvents.every((event: { actor: string; subject: string }) => event.actor.startsWith('api_key:') && event.subject === webhookId)).toBe(true);
    const text = JSON.stringify(audit.body.data);
    expect(text).not.toContain(made.body.data.secret.slice('whsec_'.length));
    expect(text).not.toContain(rotated.body.data.secret.slice('whsec_'.length));
    expect(text).not.toMatch(/secret_ciphertext|failing_since/);
  }, 60_000);

  it('costs a hanging receiver one bounded attempt, then retries on the schedule', async () => {
    const owner = await createOwner(env.deps);
    const subscription = await seedSubscription(env.deps, owner);
    const made = await create(owner, { events: ['license.created'] });
    receiver.respond = () => undefined;
    const started = Date.now();
    await env.post('/license/create', { app_id: owner.app_id, subscription_id: subscription.subscription_id, duration_unit: 'days', duration_value: 1 }, owner.auth);
    await delivery.events.drain();
    await until(async () => (await env.post('/webhook/deliveries', { webhook_id: made.body.data.webhook_id }, owner.auth)).body.data[0]?.last_error !== null);
    const [entry] = (await env.post('/webhook/deliveries', { webhook_id: made.body.data.webhook_id }, owner.auth)).body.data;
    expect(entry).toMatchObject({ state: 'pending', last_status: null, last_error: 'no complete answer within 0.3 s' });
    expect(entry.attempts).toBeGreaterThanOrEqual(1);
    expect(Date.now() - started).toBeLessThan(10_000);
    receiver.respond = (_request, response) => response.writeHead(204).end();
    await until(async () => (await env.post('/webhook/deliveries', { webhook_id: made.body.data.webhook_id }, owner.auth)).body.data[0]?.state === 'delivered');
  }, 60_000);

  it('fails a delivery after 8 attempts, and disables an endpoint whose 50th delivery in a row failed', async () => {
    const owner = await createOwner(env.deps);
    const subscription = await seedSubscription(env.deps, owner);
    const made = await create(owner, { events: ['license.created'] });
    const webhookId = made.body.data.webhook_id;
    await setEndpointFields(webhookId, { failed_deliveries: 49 });
    receiver.respond = (_request, response) => response.writeHead(503).end('busy');
    await env.post('/license/create', { app_id: owner.app_id, subscription_id: subscription.subscription_id, duration_unit: 'days', duration_value: 1 }, owner.auth);
    await delivery.events.drain();
    await until(async () => (await env.post('/webhook/deliveries', { webhook_id: webhookId }, owner.auth)).body.data[0]?.state === 'failed', 15_000);
    const [entry] = (await env.post('/webhook/deliveries', { webhook_id: webhookId }, owner.auth)).body.data;
    expect(entry).toMatchObject({ state: 'failed', attempts: 8, last_status: 503, last_error: 'HTTP 503: busy', next_attempt_at: null });
    expect(receivedFor(owner)).toHaveLength(8);
    expect(new Set(receivedFor(owner).map((request) => request.headers['webhook-id'])).size).toBe(1);
    const listed = (await env.post('/webhook/list', { app_id: owner.app_id }, owner.auth)).body.data;
    expect(listed[0]).toMatchObject({ webhook_id: webhookId, enabled: false });
    await delivery.events.drain();
    const audit = await env.post('/audit/get-bulk', { app_id: owner.app_id, type: 'webhook.disabled' }, owner.auth);
    expect(audit.body.data).toEqual([expect.objectContaining({ subject: webhookId, actor: 'service', after: expect.objectContaining({ enabled: false, disabled_reason: '50 deliveries in a row failed' }) })]);
    const enabled = await env.post('/webhook/update', { webhook_id: webhookId, enabled: true }, owner.auth);
    expect(enabled.body.data.enabled).toBe(true);
  }, 60_000);

  it('disables an endpoint whose attempts have all failed for 5 days', async () => {
    const owner = await createOwner(env.deps);
    const subscription = await seedSubscription(env.deps, owner);
    const made = await create(owner, { events: ['license.created'] });
    const webhookId = made.body.data.webhook_id;
    await setEndpointFields(webhookId, { failing_since: new Date(Date.now() - 5 * 86400_000 - 60_000).toISOString() });
    receiver.respond = (_request, response) => response.writeHead(500).end();
    await env.post('/license/create', { app_id: owner.app_id, subscription_id: subscription.subscription_id, duration_unit: 'days', duration_value: 1 }, owner.auth);
    await delivery.settle();
    await until(async () => (await env.post('/webhook/list', { app_id: owner.app_id }, owner.auth)).body.data[0]?.enabled === false);
    expect(receivedFor(owner)).toHaveLength(1);
    const [entry] = (await env.post('/webhook/deliveries', { webhook_id: webhookId }, owner.auth)).body.data;
    expect(entry).toMatchObject({ state: 'failed', attempts: 1 });
  });
});
