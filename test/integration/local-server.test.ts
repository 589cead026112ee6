import { connect } from 'node:net';
import { routes } from '../../functions/routes';
import { withOwner } from '../support/owners';
import { request } from '../support/env';

const { env, owner } = withOwner();

const specCors = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'Content-Type, Authorization',
  'access-control-max-age': '86400',
};

describe('the local server', () => {
  it.each(['/auth', '/register'])('answers OPTIONS %s with 204 and the documented CORS headers', async (path) => {
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

  it('answers invalid JSON on a client route with the documented message and CORS headers', async () => {
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

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
  /** Whether the server closed the connection after answering. */
  closed: boolean;
}

/**
 * Sends `payload` as it is over a fresh loopback socket and reads one answer:
 * its head, then `Content-Length` bytes of body, then waits briefly to see
 * whether the server closes. A reset or a timeout fails the test.
 */
function exchange(payload: (string | Buffer)[], timeoutMs = 10_000): Promise<RawAnswer> {
  const { port } = env.server;
  return new Promise((resolveAnswer, reject) => {
    const socket = connect(port, '127.0.0.1');
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer in time'));
    }, timeoutMs);
    let received = Buffer.alloc(0);
    let answer: Omit<RawAnswer, 'closed'> | undefined;
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      if (answer) resolveAnswer({ ...answer, closed });
      else reject(new Error(`closed before a whole answer: ${received.toString('latin1').slice(0, 200)}`));
    };
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const headEnd = received.indexOf('\r\n\r\n');
      if (answer || headEnd < 0) return;
      const [statusLine, ...lines] = received.subarray(0, headEnd).toString('latin1').split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      const length = Number(headers['content-length'] ?? 0);
      if (received.length < headEnd + 4 + length) return;
      const text = received.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
      answer = { status: Number(statusLine!.split(' ')[1]), headers, body: text ? JSON.parse(text) : undefined };
      setTimeout(() => finish(false), 200);
    });
    socket.on('end', () => finish(true));
    socket.on('connect', () => {
      for (const part of payload) socket.write(part);
    });
  });
}

const get = (target: string) => [`GET ${target} HTTP/1.1\r\nHost: localhost\r\n\r\n`];

describe('the local server’s edge', () => {
  it.each(['//[', '/[', '/docs/%', '/dashboard/%zz', '/license/get?q=[x]', '*'])('answers the malformed request target %s with 400 in the management shape', async (target) => {
    const answer = await exchange(get(target));

    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: expect.stringMatching(/^Malformed request target/), error_code: 'INVALID_INPUT' });
  });

  it('answers a malformed target of a client route in the client shape', async () => {
    const answer = await exchange([`POST /auth?[ HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{}`]);

    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ success: false, message: 'Malformed request target' });
    expect(answer.headers['access-control-allow-origin']).toBe('*');
  });

  it.each([
    ['/license/get', { error: 'Request body too large', error_code: 'PAYLOAD_TOO_LARGE' }],
    ['/auth', { success: false, message: 'Request body too large' }],
  ])('answers a body over 10 MiB on %s with 413 after reading it, without resetting the connection', async (path, body) => {
    const size = 10 * 1024 * 1024 + 1;
    const head = `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`;

    const answer = await exchange([head, Buffer.alloc(size, 0x20)], 20_000);

    expect(answer.status).toBe(413);
    expect(answer.body).toEqual(body);
    expect(answer.closed).toBe(false);
  });

  it('answers headers over 16 KiB with 431 and a JSON body in the management shape, then closes', async () => {
    const answer = await exchange([`GET /openapi.json HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);

    expect(answer.status).toBe(431);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.body).toEqual({ error: 'Request headers too large', error_code: 'HEADERS_TOO_LARGE' });
    expect(answer.closed).toBe(true);
  });

  it('answers a request that is not HTTP with 400 in the management shape, then closes', async () => {
    const answer = await exchange(['NOT HTTP AT ALL\r\n\r\n']);

    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'Malformed HTTP request', error_code: 'INVALID_INPUT' });
    expect(answer.closed).toBe(true);
  });

  it('serves /docs/ unframeable and /openapi.json as nothing but JSON', async () => {
    const docs = await exchange(get('/docs/'));
    const document = await exchange(get('/openapi.json'));

    expect(docs.status).toBe(200);
    expect(docs.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(docs.headers['x-frame-options']).toBe('DENY');
    expect(document.status).toBe(200);
    expect(document.headers['x-content-type-options']).toBe('nosniff');
  });
});
