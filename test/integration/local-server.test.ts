import { routes } from '../../functions/routes';
import { createOwner, type Owner } from '../support/owners';
import { request, startTestServer, type TestServer } from '../support/env';

let env: TestServer;
let owner: Owner;

beforeAll(async () => {
  env = await startTestServer();
  owner = await createOwner(env.deps);
});
afterAll(() => env.close());

const specCors = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'Content-Type, Authorization',
  'access-control-max-age': '86400',
};

describe('the local server', () => {
  it.each(['/auth', '/register'])('answers OPTIONS %s with 204 and the spec’s CORS headers', async (path) => {
    const response = await request(env.server.url, path, 'OPTIONS', undefined);
    expect(response.status).toBe(204);
    for (const [name, value] of Object.entries(specCors)) expect(response.headers.get(name)).toBe(value);
  });

  it('answers preflight on every route, management ones too', async () => {
    for (const route of routes) {
      const response = await request(env.server.url, route.path, 'OPTIONS', undefined);
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
    }
  });

  it('answers invalid JSON on a client route with the spec’s message and CORS headers', async () => {
    const response = await env.post('/auth', '{"app_id": ');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, message: 'Invalid JSON in request body' });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers invalid JSON on a management route with INVALID_INPUT', async () => {
    const response = await env.post('/license/get', '{nope', owner.auth);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error_code: 'INVALID_INPUT' });
  });

  it('runs the API-key authorizer before management handlers', async () => {
    const missing = await env.post('/license/get', {});
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ error: 'Missing API key', error_code: 'MISSING_AUTH' });
    expect(missing.headers.get('access-control-allow-origin')).toBe('*');

    const invalid = await env.post('/license/get', {}, { 'x-api-key': 'lsk_not-a-key' });
    expect(invalid.status).toBe(401);
    expect(invalid.body).toEqual({ error: 'Invalid or inactive API key', error_code: 'INVALID_API_KEY' });
  });

  it('accepts the header in any case, as HTTP allows', async () => {
    const response = await env.post('/license/get', '{nope', { 'X-API-Key': owner.api_key });
    expect(response.body).toMatchObject({ error_code: 'INVALID_INPUT' });
  });

  it('answers unknown paths with 404 and other methods with 405, never a hang', async () => {
    const unknown = await env.post('/nothing-here', {});
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error_code: 'NOT_FOUND' });
    const wrongMethod = await request(env.server.url, '/auth', 'GET', undefined);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body).toMatchObject({ success: false });
  });
});
