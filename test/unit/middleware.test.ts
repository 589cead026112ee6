import type { Context } from 'aws-lambda';
import { readConfig } from '#core/config';
import type { Deps } from '#core/deps';
import { clientFailure, ManagementError, rateLimited } from '#core/http/errors';
import { createGroupHandler, type Endpoint, type Endpoints } from '#core/http/handler';
import { createLogger } from '#core/logger';
import type { HttpEvent } from '#core/http/middleware';
import { routes } from '../../functions/routes';
import { endpointsOf, proxyEvent } from '../support/endpoints';
import { recordingSink } from '../support/log-evidence';

const logged: string[] = [];
const depsFor = (debug: boolean) => () =>
  ({ config: { ...readConfig({}), debug }, logger: createLogger('debug', {}, recordingSink(logged)) }) as unknown as Deps;

const event = (path: string, body: string | null, method = 'POST', extra: Partial<HttpEvent> = {}): HttpEvent =>
  proxyEvent(path, body, { httpMethod: method, ...extra });

const context = {} as Context;
const echo: Endpoint = async (_deps, body, request) => ({
  body: { success: true, body, ip: request.sourceIp, country: request.header('CloudFront-Viewer-Country') ?? null },
});
const boom: Endpoint = async () => {
  throw new TypeError('database exploded at line 42');
};

const client = (debug = false) => createGroupHandler('client', endpointsOf('client', { '/auth': echo, '/register': boom }), depsFor(debug));
const management = () =>
  createGroupHandler(
    'license',
    endpointsOf('license', {
      '/license/get': async () => {
        throw new ManagementError('LICENSE_NOT_FOUND');
      },
      '/license/extend': async () => {
        throw rateLimited(3);
      },
      '/license/update-metadata': echo,
    }),
    depsFor(false),
  );

const specCors = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type, Authorization',
  'Access-Control-Max-Age': '86400',
};
const managementCors = { ...specCors, 'Access-Control-Allow-Headers': 'Content-Type, Authorization, x-api-key' };
/** docs/client-api.md#signed-answers-and-offline-tokens: browser clients may read the signature headers. */
const clientCors = { ...specCors, 'Access-Control-Expose-Headers': 'Signature, Signature-Input, Content-Digest' };
const json = { 'Content-Type': 'application/json' };

describe('the shared Middy stack', () => {
  beforeEach(() => logged.splice(0));

  it('answers a preflight with 204, the four CORS headers of the client API and the exposed signature headers', async () => {
    const response = await client()(event('/auth', null, 'OPTIONS'), context);
    expect(response.statusCode).toBe(204);
    expect(response.headers).toEqual(clientCors);
  });

  it('answers a management preflight with 204 and the API key header allowed, before the body is looked at', async () => {
    const response = await management()(event('/license/get', '{nope', 'OPTIONS', { headers: { Origin: 'https://owner.example' } }), context);
    expect(response.statusCode).toBe(204);
    expect(response.headers).toEqual(managementCors);
  });

  it('puts exactly the side’s CORS headers on successes and on errors', async () => {
    const clientSuccess = await client()(event('/auth', '{}', 'POST', { headers: { Origin: 'https://app.example' } }), context);
    const clientFault = await client()(event('/register', '{}'), context);
    const managementSuccess = await management()(event('/license/update-metadata', '{}'), context);
    const managementFailure = await management()(event('/license/get', '{}'), context);

    expect(clientSuccess.headers).toEqual({ ...json, ...clientCors });
    expect(clientFault.headers).toEqual({ ...json, ...clientCors });
    expect(managementSuccess.headers).toEqual({ ...json, ...managementCors });
    expect(managementFailure.headers).toEqual({ ...json, ...managementCors });
  });

  it('keeps an error’s own headers beside the CORS headers', async () => {
    const response = await management()(event('/license/extend', '{}'), context);
    expect(response.statusCode).toBe(429);
    expect(response.headers).toEqual({ ...json, ...managementCors, 'Retry-After': '3' });
  });

  it('looks headers up whatever the case of their names', async () => {
    const response = await client()(event('/auth', '{}', 'POST', { headers: { 'cloudfront-viewer-COUNTRY': 'DE' } }), context);
    expect(JSON.parse(response.body).country).toBe('DE');
  });

  it('parses a JSON body whatever Content-Type it came with', async () => {
    const response = await client()(event('/auth', '{"a":1}', 'POST', { headers: { 'Content-Type': 'text/plain' } }), context);
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body).body).toEqual({ a: 1 });
  });

  it('passes the parsed body and the source IP to the endpoint, with CORS on the answer', async () => {
    const response = await client()(event('/auth', '{"app_id":"x"}'), context);
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ success: true, body: { app_id: 'x' }, ip: '192.0.2.1', country: null });
    expect(response.headers).toMatchObject(specCors);
  });

  it('decodes base64 bodies as API Gateway may send them', async () => {
    const body = Buffer.from('{"a":1}').toString('base64');
    const response = await client()(event('/auth', body, 'POST', { isBase64Encoded: true }), context);
    expect(JSON.parse(response.body).body).toEqual({ a: 1 });
  });

  it('renders invalid JSON as the client API’s message, and as INVALID_INPUT on management routes', async () => {
    const clientAnswer = await client()(event('/auth', '{nope'), context);
    expect(clientAnswer.statusCode).toBe(400);
    expect(JSON.parse(clientAnswer.body)).toEqual({ success: false, message: 'Invalid JSON in request body' });
    expect(clientAnswer.headers).toMatchObject(specCors);

    const managementAnswer = await management()(event('/license/get', '{nope'), context);
    expect(managementAnswer.statusCode).toBe(400);
    expect(JSON.parse(managementAnswer.body)).toEqual({ error: 'Request body is not valid JSON', error_code: 'INVALID_INPUT' });
    expect(managementAnswer.headers).toMatchObject(managementCors);
  });

  it.each([
    ['an empty', ''],
    ['a missing', null],
  ])('renders %s body as invalid JSON on both sides', async (_, body) => {
    const clientAnswer = await client()(event('/auth', body), context);
    const managementAnswer = await management()(event('/license/get', body), context);

    expect(clientAnswer.statusCode).toBe(400);
    expect(JSON.parse(clientAnswer.body)).toEqual({ success: false, message: 'Invalid JSON in request body' });
    expect(managementAnswer.statusCode).toBe(400);
    expect(JSON.parse(managementAnswer.body)).toEqual({ error: 'Request body is not valid JSON', error_code: 'INVALID_INPUT' });
  });

  it('keeps the body bytes as received for the endpoint after parsing, base64 decoded or as text', async () => {
    const rawEcho: Endpoint = async (_deps, body, request) => ({ body: { body, raw: Buffer.from(request.rawBody).toString('base64') } });
    const handler = createGroupHandler('client', endpointsOf('client', { '/auth': rawEcho }), depsFor(false));
    const bytes = Buffer.from('{ "name" : "Zoë\u00e9",\r\n "n": 1.50 }');
    const fromBase64 = await handler(event('/auth', bytes.toString('base64'), 'POST', { isBase64Encoded: true }), context);
    const fromText = await handler(event('/auth', bytes.toString('utf8')), context);
    for (const response of [fromBase64, fromText]) {
      expect(JSON.parse(response.body)).toEqual({ body: { name: 'Zoëé', n: 1.5 }, raw: bytes.toString('base64') });
    }
  });

  it('renders a base64 body that is not JSON as invalid JSON', async () => {
    const body = Buffer.from('{nope').toString('base64');
    const response = await client()(event('/auth', body, 'POST', { isBase64Encoded: true }), context);
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body)).toEqual({ success: false, message: 'Invalid JSON in request body' });
  });

  it('answers 413 for a client body over 64 KiB, with the CORS headers', async () => {
    const response = await client()(event('/auth', JSON.stringify({ pad: 'x'.repeat(64 * 1024) })), context);
    expect(response.statusCode).toBe(413);
    expect(JSON.parse(response.body)).toEqual({ success: false, message: 'Request body too large' });
    expect(response.headers).toEqual({ ...json, ...clientCors });
  });

  it('answers 413 for a management body over 256 KiB, and takes one of 100 KiB', async () => {
    const over = await management()(event('/license/get', JSON.stringify({ pad: 'x'.repeat(256 * 1024) })), context);
    const under = await management()(event('/license/update-metadata', JSON.stringify({ pad: 'x'.repeat(100 * 1024) })), context);

    expect(over.statusCode).toBe(413);
    expect(JSON.parse(over.body)).toEqual({ error: 'Request body too large', error_code: 'PAYLOAD_TOO_LARGE' });
    expect(under.statusCode).toBe(200);
  });

  it('counts a base64 body by its decoded size', async () => {
    const fits = JSON.stringify({ pad: 'x'.repeat(60 * 1024) });
    const encoded = Buffer.from(fits).toString('base64');
    expect(encoded.length).toBeGreaterThan(64 * 1024);

    const response = await client()(event('/auth', encoded, 'POST', { isBase64Encoded: true }), context);
    const tooLarge = await client()(event('/auth', Buffer.from(JSON.stringify({ pad: 'x'.repeat(64 * 1024) })).toString('base64'), 'POST', { isBase64Encoded: true }), context);

    expect(response.statusCode).toBe(200);
    expect(tooLarge.statusCode).toBe(413);
  });

  it('renders typed errors in their side’s shape', async () => {
    const handler = createGroupHandler('client', endpointsOf('client', { '/auth': async () => { throw clientFailure('LICENSE_EXPIRED', { expires_at: 'x' }); } }), depsFor(false));
    const clientAnswer = await handler(event('/auth', '{}'), context);
    expect(clientAnswer.statusCode).toBe(403);
    expect(JSON.parse(clientAnswer.body)).toEqual({ success: false, message: 'LICENSE_EXPIRED', data: { expires_at: 'x' } });

    const managementAnswer = await management()(event('/license/get', '{}'), context);
    expect(managementAnswer.statusCode).toBe(404);
    expect(JSON.parse(managementAnswer.body)).toEqual({ error: 'License not found', error_code: 'LICENSE_NOT_FOUND' });
  });

  it('hides a server fault’s cause outside debug mode but logs it', async () => {
    const response = await client()(event('/register', '{}'), context);
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body)).toEqual({ success: false, message: 'Internal server error' });
    expect(response.body).not.toContain('exploded');
    expect(logged.join('\n')).toContain('database exploded at line 42');
  });

  it('adds debug_error, and debug_type on /register, in debug mode', async () => {
    const response = await client(true)(event('/register', '{}'), context);
    expect(JSON.parse(response.body)).toEqual({
      success: false,
      message: 'Internal server error',
      debug_error: 'database exploded at line 42',
      debug_type: 'TypeError',
    });
  });

  it('takes a table with an endpoint for every path of the group, and no table missing one', async () => {
    // @ts-expect-error /reset-hwid is a client route: a client table without it does not compile.
    const missing: Endpoints<'client'> = { '/auth': echo, '/register': echo };
    expect(Object.keys(missing)).toHaveLength(2);
    const clientPaths = routes.filter((route) => route.group === 'client').map((route) => route.path);
    expect(Object.keys(endpointsOf('client', {})).sort()).toEqual(clientPaths.sort());
  });

  it('answers a path of another group, which the stack never sends, as a server fault', async () => {
    const response = await management()(event('/auth', '{}'), context);
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body)).toEqual({ error: 'Internal server error', error_code: 'SERVER_ERROR' });
    expect(logged.join('\n')).toContain('/auth is not a route of the license group');
  });
});
