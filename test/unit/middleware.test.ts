import type { Context } from 'aws-lambda';
import { readConfig } from '#core/config';
import type { Deps } from '#core/deps';
import { clientFailure, ManagementError } from '#core/errors';
import { createGroupHandler, type Endpoint } from '#core/http';
import { createLogger } from '#core/logger';
import type { HttpEvent } from '#core/middleware';

const logged: string[] = [];
const depsFor = (debug: boolean) => () =>
  ({ config: { ...readConfig({}), debug }, logger: createLogger('debug', {}, (line) => logged.push(line)) }) as unknown as Deps;

function event(path: string, body: string | null, method = 'POST', extra: Partial<HttpEvent> = {}): HttpEvent {
  return {
    resource: path,
    path,
    httpMethod: method,
    headers: {},
    multiValueHeaders: {},
    body,
    isBase64Encoded: false,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    requestContext: { requestId: 'r-1', identity: { sourceIp: '192.0.2.1' } } as HttpEvent['requestContext'],
    ...extra,
  };
}

const context = {} as Context;
const echo: Endpoint = async (_deps, body, request) => ({ body: { success: true, body, ip: request.sourceIp } });
const boom: Endpoint = async () => {
  throw new TypeError('database exploded at line 42');
};

const client = (debug = false) => createGroupHandler('client', { '/auth': echo, '/register': boom }, depsFor(debug));
const management = () =>
  createGroupHandler(
    'license',
    {
      '/license/get': async () => {
        throw new ManagementError(404, 'LICENSE_NOT_FOUND', 'License not found');
      },
    },
    depsFor(false),
  );

const specCors = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type, Authorization',
  'Access-Control-Max-Age': '86400',
};

describe('the shared Middy stack', () => {
  beforeEach(() => logged.splice(0));

  it('answers a preflight with 204 and exactly the spec’s four CORS headers', async () => {
    const response = await client()(event('/auth', null, 'OPTIONS'), context);
    expect(response.statusCode).toBe(204);
    expect(response.headers).toEqual(specCors);
  });

  it('passes the parsed body and the source IP to the endpoint, with CORS on the answer', async () => {
    const response = await client()(event('/auth', '{"app_id":"x"}'), context);
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ success: true, body: { app_id: 'x' }, ip: '192.0.2.1' });
    expect(response.headers).toMatchObject(specCors);
  });

  it('decodes base64 bodies as API Gateway may send them', async () => {
    const body = Buffer.from('{"a":1}').toString('base64');
    const response = await client()(event('/auth', body, 'POST', { isBase64Encoded: true }), context);
    expect(JSON.parse(response.body).body).toEqual({ a: 1 });
  });

  it('renders invalid JSON as the spec’s client message, and as INVALID_INPUT on management routes', async () => {
    const clientAnswer = await client()(event('/auth', '{nope'), context);
    expect(clientAnswer.statusCode).toBe(400);
    expect(JSON.parse(clientAnswer.body)).toEqual({ success: false, message: 'Invalid JSON in request body' });
    expect(clientAnswer.headers).toMatchObject(specCors);

    const managementAnswer = await management()(event('/license/get', ''), context);
    expect(managementAnswer.statusCode).toBe(400);
    expect(JSON.parse(managementAnswer.body)).toMatchObject({ error_code: 'INVALID_INPUT' });
  });

  it('answers 413 for a client body over 64 KiB', async () => {
    const response = await client()(event('/auth', JSON.stringify({ pad: 'x'.repeat(64 * 1024) })), context);
    expect(response.statusCode).toBe(413);
    expect(JSON.parse(response.body)).toEqual({ success: false, message: 'Request body too large' });
  });

  it('renders typed errors in their side’s shape', async () => {
    const handler = createGroupHandler('client', { '/auth': async () => { throw clientFailure('LICENSE_EXPIRED', { expires_at: 'x' }); } }, depsFor(false));
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

  it('answers 501 in the side’s shape for a route without an endpoint yet', async () => {
    const response = await management()(event('/license/create', '{}'), context);
    expect(response.statusCode).toBe(501);
    expect(JSON.parse(response.body)).toMatchObject({ error_code: 'NOT_IMPLEMENTED' });
  });
});
