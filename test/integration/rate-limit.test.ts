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

  it('does not throttle the client endpoints, which the stage throttle covers', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await env.post('/auth', '{bad')).status);
    expect(statuses).toEqual([400, 400, 400, 400]);
  });
});
