import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startTestServer, type TestServer } from '../support/env';
import { seedSubscription } from '../support/fixtures';
import { createOwner } from '../support/owners';
import { examplesDir } from '../support/verifier';
import { startTestDelivery, type TestDelivery } from '../support/webhooks';

const docsPage = readFileSync(join(examplesDir, '..', 'webhooks.md'), 'utf8');

/** python3 with the official Standard Webhooks library, which only PyPI distributes. */
function pythonWithStandardWebhooks(): string | undefined {
  for (const candidate of ['python3', '/usr/bin/python3']) {
    try {
      execFileSync(candidate, ['-c', 'import standardwebhooks.webhooks'], { stdio: 'ignore', timeout: 20_000 });
      return candidate;
    } catch {
      // Missing, or without the library: try the next one.
    }
  }
  return undefined;
}

const python = pythonWithStandardWebhooks();

let env: TestServer;
let delivery: TestDelivery;

beforeAll(async () => {
  env = await startTestServer();
  delivery = await startTestDelivery(env);
});
afterAll(async () => {
  await delivery.stop();
  await env.close();
});

/** Starts an example receiver with the secret, and reads the JSON lines it prints. */
async function startExample(command: string, file: string, secret: string) {
  const child: ChildProcessWithoutNullStreams = spawn(command, [join(examplesDir, file)], { env: { ...process.env, WEBHOOK_SECRET: secret, PORT: '0' } });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown>> => {
    const timer = setTimeout(() => child.kill(), 20_000);
    try {
      const { value, done } = await lines.next();
      if (done) throw new Error(`${file} printed nothing more`);
      return JSON.parse(value as string) as Record<string, unknown>;
    } finally {
      clearTimeout(timer);
    }
  };
  const { listening } = (await next()) as { listening: number };
  return { port: listening, next, stop: () => child.kill() };
}

async function receivesAVerifiedDelivery(command: string, file: string) {
  const owner = await createOwner(env.deps);
  const subscription = await seedSubscription(env.deps, owner);
  const created = await env.post('/webhook/create', { app_id: owner.app_id, url: 'http://127.0.0.1:9/not-yet', events: ['license.created'] }, owner.auth);
  const example = await startExample(command, file, created.body.data.secret);
  try {
    await env.post('/webhook/update', { webhook_id: created.body.data.webhook_id, url: `http://127.0.0.1:${example.port}/hooks` }, owner.auth);
    const license = await env.post('/license/create', { app_id: owner.app_id, subscription_id: subscription.subscription_id, duration_unit: 'days', duration_value: 1 }, owner.auth);
    await delivery.settle();
    expect(await example.next()).toMatchObject({ verified: true, type: 'license.created', subject: license.body.data.key });
    // A delivery not signed with the secret is refused.
    const forged = await fetch(`http://127.0.0.1:${example.port}/hooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
      body: '{"id":"forged"}',
    });
    expect(forged.status).toBe(400);
  } finally {
    example.stop();
  }
}

describe('the "Webhooks" page', () => {
  it('shows the very example files the tests run', () => {
    for (const file of ['webhook-receiver.mjs', 'webhook_receiver.py']) expect(docsPage).toContain(readFileSync(join(examplesDir, file), 'utf8').trimEnd());
  });

  it('Node example: verifies a live delivery with the official standardwebhooks package, and refuses a forged one', async () => {
    await receivesAVerifiedDelivery(process.execPath, 'webhook-receiver.mjs');
  });

  (python ? it : it.skip)(
    python
      ? 'Python example: verifies a live delivery with the official standardwebhooks library, and refuses a forged one'
      : 'Python example: SKIPPED because python3 cannot import the official standardwebhooks library (only PyPI distributes it; Debian has no package; PyPI is unreachable here)',
    async () => {
      await receivesAVerifiedDelivery(python!, 'webhook_receiver.py');
    },
  );
});
