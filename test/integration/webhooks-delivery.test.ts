import { Webhook } from 'standardwebhooks';
import { startTestServer, type TestServer } from '../support/env';
import { seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';
import { startReceiver, startTestDelivery, until, type Receiver, type TestDelivery } from '../support/webhooks';
import type { Subscription } from '#data/model/subscription';

let env: TestServer;
let delivery: TestDelivery;
let receiver: Receiver;

beforeAll(async () => {
  env = await startTestServer();
  delivery = await startTestDelivery(env);
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

async function ownerWithWebhook(events: string[] = ['license.created']): Promise<{ owner: Owner; subscription: Subscription; webhookId: string; secret: string }> {
  const owner = await createOwner(env.deps);
  const subscription = await seedSubscription(env.deps, owner);
  const created = await env.post('/webhook/create', { app_id: owner.app_id, url: receiver.url, events }, owner.auth);
  expect(created.status).toBe(200);
  return { owner, subscription, webhookId: created.body.data.webhook_id, secret: created.body.data.secret };
}

const createLicense = (owner: Owner, subscription: Subscription) =>
  env.post('/license/create', { app_id: owner.app_id, subscription_id: subscription.subscription_id, duration_unit: 'days', duration_value: 30 }, owner.auth);

const deliveries = async (owner: Owner, webhookId: string) => (await env.post('/webhook/deliveries', { webhook_id: webhookId }, owner.auth)).body.data;

describe('webhook delivery to a loopback receiver', () => {
  it('sends license.created, signed so that the official standardwebhooks verifier accepts it', async () => {
    const { owner, subscription, webhookId, secret } = await ownerWithWebhook();
    const license = await createLicense(owner, subscription);
    await delivery.settle();
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    const verified = new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>) as Record<string, unknown>;
    expect(verified).toMatchObject({ type: 'license.created', app_id: owner.app_id, subject: license.body.data.key });
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['webhook-id']).toBe(verified.id);
    const log = await deliveries(owner, webhookId);
    expect(log).toEqual([
      expect.objectContaining({ event_id: verified.id, type: 'license.created', state: 'delivered', attempts: 1, last_status: 204, last_error: null, next_attempt_at: null }),
    ]);
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(request!.body, request!.headers as Record<string, string>)).toThrow();
  });

  it('retries a receiver that answered 500: the same webhook-id twice, 2 attempts, delivered', async () => {
    const { owner, subscription, webhookId } = await ownerWithWebhook();
    receiver.respond = (_request, response, index) => response.writeHead(index === 0 ? 500 : 200).end(index === 0 ? 'down for maintenance' : 'ok');
    await createLicense(owner, subscription);
    await delivery.settle();
    await until(async () => (await deliveries(owner, webhookId))[0]?.state === 'delivered');
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
    expect(await deliveries(owner, webhookId)).toEqual([expect.objectContaining({ state: 'delivered', attempts: 2, last_status: 200, last_error: null })]);
  });

  it('redelivers a delivered event on request, with the same webhook-id, as one more attempt', async () => {
    const { owner, subscription, webhookId } = await ownerWithWebhook();
    await createLicense(owner, subscription);
    await delivery.settle();
    const [first] = await deliveries(owner, webhookId);
    const answer = await env.post('/webhook/redeliver', { delivery_id: first.delivery_id }, owner.auth);
    expect(answer.body).toEqual({ success: true, data: { delivery_id: first.delivery_id, queued: true } });
    await delivery.settle();
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
    expect(await deliveries(owner, webhookId)).toEqual([expect.objectContaining({ state: 'delivered', attempts: 2 })]);
  });

  it('sends no event of a type the endpoint did not subscribe to', async () => {
    const { owner, subscription, webhookId } = await ownerWithWebhook(['license.deleted']);
    const license = await createLicense(owner, subscription);
    await delivery.settle();
    expect(receiver.received).toHaveLength(0);
    await env.post('/license/delete', { license_key: license.body.data.key }, owner.auth);
    await delivery.settle();
    expect(receiver.received.map((request) => JSON.parse(request.body).type)).toEqual(['license.deleted']);
    expect((await deliveries(owner, webhookId)).map((entry: { type: string }) => entry.type)).toEqual(['license.deleted']);
  });

  it('sends nothing to a disabled endpoint, and refuses to redeliver to it', async () => {
    const { owner, subscription, webhookId } = await ownerWithWebhook(['*']);
    await createLicense(owner, subscription);
    await delivery.settle();
    const [first] = await deliveries(owner, webhookId);
    receiver.received.length = 0;
    expect((await env.post('/webhook/update', { webhook_id: webhookId, enabled: false }, owner.auth)).body.data.enabled).toBe(false);
    await createLicense(owner, subscription);
    await delivery.settle();
    expect(receiver.received).toHaveLength(0);
    const refused = await env.post('/webhook/redeliver', { delivery_id: first.delivery_id }, owner.auth);
    expect(refused.status).toBe(409);
    expect(refused.body.error_code).toBe('WEBHOOK_DISABLED');
  });

  it('keeps a copy of an attempt message from counting or sending twice (SQS delivers at least once)', async () => {
    const { owner, subscription, webhookId } = await ownerWithWebhook();
    await createLicense(owner, subscription);
    await delivery.settle();
    const [entry] = await deliveries(owner, webhookId);
    const message = { attempt: { delivery_id: entry.delivery_id, number: 1, due_at: Date.now() } };
    // The first attempt's message, handed over again after it was done: stale, nothing sent, nothing counted.
    await delivery.queue.send(message, 0);
    await delivery.queue.send(message, 0);
    await delivery.settle();
    expect(receiver.received).toHaveLength(1);
    expect(await deliveries(owner, webhookId)).toEqual([expect.objectContaining({ state: 'delivered', attempts: 1 })]);
  });

  it('makes one attempt of two copies of a redelivery handled at the same time', async () => {
    const { owner, subscription, webhookId } = await ownerWithWebhook();
    await createLicense(owner, subscription);
    await delivery.settle();
    const [entry] = await deliveries(owner, webhookId);
    receiver.received.length = 0;
    const message = { attempt: { delivery_id: entry.delivery_id, number: 2, due_at: Date.now(), reopen: true } };
    await Promise.all([delivery.queue.send(message, 0), delivery.queue.send(message, 0)]);
    await delivery.settle();
    expect(receiver.received).toHaveLength(1);
    expect(await deliveries(owner, webhookId)).toEqual([expect.objectContaining({ state: 'delivered', attempts: 2 })]);
  });
});
