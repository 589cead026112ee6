import type { Context } from 'aws-lambda';
import { createDeps } from '#core/deps';
import { newId } from '#core/ids';
import { createLogger } from '#core/logger';
import type { HttpEvent } from '#core/http/middleware';
import type { Subscription } from '#data/model/subscription';
import { createGroupHandlers } from '../../local/handlers';
import { startLocalServer, type LocalServer } from '../../local/server';
import { request, startTestServer, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';

let env: TestServer;
let owner: Owner;
let subscription: Subscription;
const servers: LocalServer[] = [];

beforeAll(async () => {
  env = await startTestServer();
  owner = await createOwner(env.deps);
  subscription = await seedSubscription(env.deps, owner);
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await env.close();
});

describe('secrets in the logs', () => {
  it('no password, API key or bcrypt hash reaches a debug log line, through successes, failures and server faults', async () => {
    const passwords = ['first-secret-pw', 'second-secret-pw', 'wrong-secret-pw', 'created-secret-pw', 'fault-secret-pw'];
    const wrongApiKey = `lsk_${'Z'.repeat(40)}`;
    const license = await seedLicense(env.deps, subscription);
    // A server over a table that does not exist, logging into the same lines: every call of it is a 500.
    const brokenDeps = createDeps(
      { ...env.config, tableName: `missing-${newId()}` },
      { client: env.client, keyVault: env.deps.keyVault, logger: createLogger('debug', {}, env.logSink) },
    );
    const broken = await startLocalServer({ deps: brokenDeps, port: 0 });
    servers.push(broken);
    const client = (body: Record<string, unknown>) => ({ app_id: owner.app_id, ...body });

    const answers = [
      await env.post('/register', client({ license: license.key, username: 'secret-user', password: passwords[0] })),
      await env.post('/auth', client({ username: 'secret-user', password: passwords[0] })),
      await env.post('/auth', client({ username: 'secret-user', password: passwords[2] })),
      await env.post('/register', client({ license: 'NO-SUCH-KEY', username: 'other-user', password: passwords[1] })),
      await env.post('/license/update-user-credentials', { license_key: license.key, username: 'secret-user-2', password: passwords[1] }, owner.auth),
      await env.post(
        '/license/create',
        { app_id: owner.app_id, subscription_id: subscription.subscription_id, duration_unit: 'days', duration_value: 1, username: 'made-user', password: passwords[3] },
        owner.auth,
      ),
      await env.post('/license/get', { license_key: license.key }, { 'x-api-key': wrongApiKey }),
      await request(broken.url, '/register', 'POST', client({ license: license.key, username: 'fault-user', password: passwords[4] })),
      await request(broken.url, '/license/get', 'POST', { license_key: license.key }, owner.auth),
    ];

    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 403, 403, 200, 200, 401, 500, 500]);
    const logged = env.logs.lines.join('\n');
    expect(logged).toContain('ResourceNotFoundException');
    for (const secret of [...passwords, owner.api_key, wrongApiKey]) expect(logged).not.toContain(secret);
    expect(logged).not.toMatch(/\$2[aby]\$\d\d\$/);
  });
});

describe('client addresses before the blacklist check', () => {
  it('blocks a request from the IPv6 loopback listed in its long form', async () => {
    const listed = await createOwner(env.deps);
    const added = await env.post('/blacklist/add', { app_id: listed.app_id, type: 'ip', value: '0:0:0:0:0:0:0:1' }, listed.auth);
    const server = await startLocalServer({ deps: env.deps, port: 0, host: '::1' });
    servers.push(server);

    const response = await request(server.url, '/auth', 'POST', { app_id: listed.app_id, license: 'NO-SUCH-KEY' });

    expect(added.status).toBe(200);
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ success: false, message: 'IP_BLACKLISTED' });
  });

  it('blocks an IPv4-mapped IPv6 source listed as its IPv4 address', async () => {
    const listed = await createOwner(env.deps);
    await env.post('/blacklist/add', { app_id: listed.app_id, type: 'ip', value: '192.0.2.7' }, listed.auth);
    const handler = createGroupHandlers(env.deps).client;
    const event = (sourceIp: string) =>
      ({
        resource: '/auth',
        path: '/auth',
        httpMethod: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ app_id: listed.app_id, license: 'NO-SUCH-KEY' }),
        isBase64Encoded: false,
        requestContext: { requestId: newId(), identity: { sourceIp } },
      }) as unknown as HttpEvent;
    const context = { awsRequestId: newId(), getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

    const mapped = await handler(event('::ffff:192.0.2.7'), context);
    const other = await handler(event('::ffff:192.0.2.8'), context);

    expect(mapped.statusCode).toBe(403);
    expect(JSON.parse(mapped.body)).toEqual({ success: false, message: 'IP_BLACKLISTED' });
    expect(JSON.parse(other.body)).toEqual({ success: false, message: 'LICENSE_NOT_FOUND' });
  });
});
