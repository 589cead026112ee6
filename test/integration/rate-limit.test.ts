import { createOwner, type Owner } from '../support/owners';
import { startTestServer, type TestServer } from '../support/env';

let env: TestServer;
let first: Owner;
let second: Owner;

beforeAll(async () => {
  env = await startTestServer({ rateLimit: { ratePerSecond: 0.5, burst: 2 } });
  [first, second] = await Promise.all([createOwner(env.deps), createOwner(env.deps)]);
});
afterAll(() => env.close());

describe('the local server’s management throttle', () => {
  it('answers 429 RATE_LIMITED with Retry-After once an owner exceeds the burst, leaving other owners alone', async () => {
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await env.post('/license/get', '{bad', first.auth));
    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 429]);
    expect(answers[2]!.body).toEqual({ error: 'Too many requests', error_code: 'RATE_LIMITED' });
    expect(Number(answers[2]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(answers[2]!.headers.get('access-control-allow-origin')).toBe('*');

    expect((await env.post('/license/get', '{bad', second.auth)).status).toBe(400);
  });

  it('does not throttle the client endpoints by owner: they have their own per-application throttle', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await env.post('/auth', '{bad')).status);
    expect(statuses).toEqual([400, 400, 400, 400]);
  });
});

describe('the local server’s per-application throttle of the client routes', () => {
  let apps: TestServer;
  let busy: Owner;
  let quiet: Owner;

  beforeAll(async () => {
    apps = await startTestServer({ clientRateLimit: { ratePerSecond: 0.5, burst: 2 } });
    [busy, quiet] = await Promise.all([createOwner(apps.deps), createOwner(apps.deps)]);
  });
  afterAll(() => apps.close());

  it('answers 429 RATE_LIMITED in the client shape with Retry-After once one app exceeds its burst, leaving other apps alone', async () => {
    const statuses = [];
    statuses.push((await apps.post('/auth', { app_id: busy.app_id, license: 'NO-SUCH-KEY' })).status);
    statuses.push((await apps.post('/register', { app_id: busy.app_id, license: 'NO-SUCH-KEY', username: 'someone', password: 'long enough' })).status);
    const limited = await apps.post('/auth', { app_id: busy.app_id, license: 'NO-SUCH-KEY' });
    statuses.push(limited.status);
    expect(statuses).toEqual([403, 403, 429]);
    expect(limited.body).toEqual({ success: false, message: 'RATE_LIMITED' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('access-control-allow-headers')).toBe('Content-Type, Authorization');

    expect((await apps.post('/auth', { app_id: quiet.app_id, license: 'NO-SUCH-KEY' })).status).toBe(403);
  });

  it('counts an activation request or return code sent alone against the application it names', async () => {
    const named = await createOwner(apps.deps);
    const code = (prefix: string, fields: Record<string, unknown>) => `${prefix}${Buffer.from(JSON.stringify({ app_id: named.app_id, license: 'NO-SUCH-KEY', hwid: 'pc', ...fields })).toString('base64url')}`;
    const statuses = [];
    statuses.push((await apps.post('/license-file', { request: code('lfr1.', { nonce: 'throttled-nonce-1' }) })).status);
    statuses.push((await apps.post('/license-file/return', { request: code('lfx1.', { jti: 'some-jti' }) })).status);
    statuses.push((await apps.post('/license-file', { request: code('lfr1.', { nonce: 'throttled-nonce-2' }) })).status);
    expect(statuses).toEqual([403, 403, 429]);
  });

  it('leaves a body without an app_id to the handler, whose 400 it is', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await apps.post('/auth', { license: 'NO-SUCH-KEY' })).status);
    expect(statuses).toEqual([400, 400, 400, 400]);
  });
});
