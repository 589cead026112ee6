import { createDeps } from '#core/deps';
import { newId } from '#core/ids';
import { createLogger } from '#core/logger';
import { startLocalServer, type LocalServer } from '../../local/server';
import { createTestEnv, request, type TestEnv } from '../support/env';

let env: TestEnv;
const servers: LocalServer[] = [];

beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  env.deps.table.doc.destroy();
});

/** A server whose table does not exist: every DynamoDB call fails, a real server fault. */
async function brokenServer(debug: boolean) {
  const logs: string[] = [];
  const deps = createDeps(
    { ...env.config, tableName: `missing-${newId()}`, debug },
    { client: env.client, logger: createLogger('error', {}, (line) => logs.push(line)) },
  );
  const server = await startLocalServer({ deps, port: 0 });
  servers.push(server);
  return { post: (path: string, body: unknown) => request(server.url, path, 'POST', body), logs };
}

const authBody = { app_id: newId(), license: 'SOME-KEY' };
const registerBody = { app_id: newId(), license: 'SOME-KEY', username: 'alice', password: 'password-1' };

describe('server faults on the client endpoints', () => {
  it('answer 500 with only success and message outside debug mode, and log the cause', async () => {
    const broken = await brokenServer(false);
    for (const [path, body] of [['/auth', authBody], ['/register', registerBody]] as const) {
      const response = await broken.post(path, body);
      expect(response.status).toBe(500);
      expect(response.body).toEqual({ success: false, message: 'Internal server error' });
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
    }
    expect(broken.logs.join('\n')).toContain('ResourceNotFoundException');
  });

  it('add debug_error on /auth and debug_error with debug_type on /register in debug mode', async () => {
    const broken = await brokenServer(true);

    const auth = await broken.post('/auth', authBody);
    expect(auth.status).toBe(500);
    expect(Object.keys(auth.body).sort()).toEqual(['debug_error', 'message', 'success']);
    expect(auth.body.debug_error).toEqual(expect.stringContaining('non-existent table'));

    const register = await broken.post('/register', registerBody);
    expect(register.status).toBe(500);
    expect(register.body).toMatchObject({ success: false, message: 'Internal server error', debug_type: 'ResourceNotFoundException' });
    expect(typeof register.body.debug_error).toBe('string');
  });

  it('still answer a bad request with its 400, not a 500, when the store is down', async () => {
    const broken = await brokenServer(false);
    expect((await broken.post('/auth', { app_id: 'x' })).status).toBe(400);
  });
});
