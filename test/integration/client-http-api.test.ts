import type { Context } from 'aws-lambda';
import type { HttpEvent } from '#core/http/middleware';
import { routes, sideOf } from '../../functions/routes';
import { createGroupHandlers } from '../../local/handlers';
import { methods, synthesize } from '../cdk/stack-fixture';
import { blacklist } from '../support/client';
import { startTestServer, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';
import { docsVerifier, postRaw, type PublicJwk } from '../support/verifier';
import type { Subscription } from '#data/model/subscription';

/**
 * The client function behind the HTTP API of clientApi=http (lib/client-api.ts): API Gateway hands it
 * a payload format 1.0 event, built here as that API builds it (a `version`, the named stage in `path`,
 * headers as the client sent them, a body base64-encoded unless its type is text). Its answers must be
 * those the REST API gives (the local server serves the REST proxy event), headers included, since the
 * HTTP API passes them through untouched (no CORS configuration, no parameter mapping).
 */
const stage = 'prod';
const clientPaths = routes.filter((route) => sideOf(route.group) === 'client').map((route) => route.path);

function httpApiEvent(request: { method: 'POST' | 'OPTIONS'; path: string; headers?: Record<string, string>; body?: string; base64?: boolean; sourceIp?: string }): HttpEvent {
  const headers = { 'User-Agent': 'licensing-client/1.0', 'X-Forwarded-Proto': 'https', ...request.headers };
  const body = request.body === undefined ? null : request.base64 ? Buffer.from(request.body).toString('base64') : request.body;
  return {
    version: '1.0',
    resource: request.path,
    path: `/${stage}${request.path}`,
    httpMethod: request.method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body,
    isBase64Encoded: request.base64 === true,
    requestContext: {
      accountId: '123456789012',
      apiId: 'a1b2c3d4e5',
      domainName: 'a1b2c3d4e5.execute-api.us-east-1.amazonaws.com',
      domainPrefix: 'a1b2c3d4e5',
      extendedRequestId: `E${Math.random().toString(36).slice(2)}=`,
      httpMethod: request.method,
      identity: { sourceIp: request.sourceIp ?? '198.51.100.7', userAgent: headers['User-Agent'] },
      path: `/${stage}${request.path}`,
      protocol: 'HTTP/1.1',
      requestId: `R${Math.random().toString(36).slice(2)}=`,
      requestTime: '27/Nov/2026:12:00:00 +0000',
      requestTimeEpoch: Date.now(),
      resourceId: `${request.method} ${request.path}`,
      resourcePath: request.path,
      stage,
    },
  } as unknown as HttpEvent;
}

let env: TestServer;
let owner: Owner;
let subscription: Subscription;
let jwk: PublicJwk;
let client: ReturnType<typeof createGroupHandlers>['client'];

beforeAll(async () => {
  env = await startTestServer();
  client = createGroupHandlers(env.deps).client;
  owner = await createOwner(env.deps);
  subscription = await seedSubscription(env.deps, owner);
  const key = await postRaw(env.server.url, '/app/signing-key', { app_id: owner.app_id }, owner.auth);
  jwk = (JSON.parse(key.body) as { data: { jwk: PublicJwk } }).data.jwk;
});
afterAll(() => env.close());

async function throughHttpApi(request: Parameters<typeof httpApiEvent>[0]) {
  const result = await client(httpApiEvent(request), {} as Context);
  return { status: result.statusCode, headers: new Headers(result.headers as Record<string, string>), body: result.body };
}

/** Each header as a [lower-case name, value] pair, in name order. */
function headerList(headers: Headers): [string, string][] {
  const list: [string, string][] = [];
  headers.forEach((value, name) => list.push([name, value]));
  return list.sort(([a], [b]) => a.localeCompare(b));
}

/** Every header but the signature's own two, which name the second they were made in. */
const unsigned = (headers: Headers) => headerList(headers).filter(([name]) => !['signature', 'signature-input'].includes(name));

describe('a client route through the HTTP API (payload format 1.0)', () => {
  it('answers a preflight with exactly the status and headers of the REST API\'s own preflight, on every client route', async () => {
    const { template } = synthesize({}, { bundle: false });
    for (const path of clientPaths) {
      const preflight = methods(template).find((method) => method.path === path && method.httpMethod === 'OPTIONS')!;
      const [response] = (preflight.properties.Integration as { IntegrationResponses: { StatusCode: string; ResponseParameters: Record<string, string> }[] }).IntegrationResponses;
      const restHeaders = Object.entries(response!.ResponseParameters).map(([name, value]) => [name.replace('method.response.header.', '').toLowerCase(), value.slice(1, -1)]);
      restHeaders.sort(([a], [b]) => a!.localeCompare(b!));
      const answer = await throughHttpApi({ method: 'OPTIONS', path, headers: { Origin: 'https://game.example.com', 'Access-Control-Request-Method': 'POST' } });
      expect(answer.status).toBe(Number(response!.StatusCode));
      expect(headerList(answer.headers)).toEqual(restHeaders);
    }
  }, 120_000);

  it('answers a POST as the REST API does: the same status, body and headers, its signature verifying', async () => {
    const { verifyAnswer } = await docsVerifier();
    const refused = JSON.stringify({ app_id: owner.app_id, license: 'NOPE-NOPE-NOPE' });
    const viaRest = await postRaw(env.server.url, '/auth', refused);
    const viaHttp = await throughHttpApi({ method: 'POST', path: '/auth', headers: { 'Content-Type': 'application/json' }, body: refused });
    expect(viaHttp.status).toBe(viaRest.status);
    expect(viaHttp.body).toBe(viaRest.body);
    expect(JSON.parse(viaHttp.body)).toEqual({ success: false, message: 'LICENSE_NOT_FOUND' });
    // The local server adds only transport headers of its own (date, connection, length, keep-alive).
    const transport = ['connection', 'content-length', 'date', 'keep-alive'];
    expect(unsigned(viaHttp.headers)).toEqual(unsigned(viaRest.headers).filter(([name]) => !transport.includes(name)));
    expect(verifyAnswer(viaHttp, { jwk })).toBeDefined();

    const { key } = await seedLicense(env.deps, subscription);
    const granted = await throughHttpApi({ method: 'POST', path: '/auth', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ app_id: owner.app_id, license: key }) });
    expect(granted.status).toBe(200);
    expect(JSON.parse(granted.body)).toMatchObject({ success: true });
    expect(granted.headers.get('access-control-allow-origin')).toBe('*');
    expect(granted.headers.get('access-control-expose-headers')).toBe('Signature, Signature-Input, Content-Digest');
    expect(verifyAnswer(granted, { jwk, license: key })).toBeDefined();
  });

  it('reads a body the HTTP API base64-encoded because its type was not text', async () => {
    const { key } = await seedLicense(env.deps, subscription);
    const answer = await throughHttpApi({
      method: 'POST',
      path: '/auth',
      headers: { 'Content-Type': 'application/octet-stream' },
      body: JSON.stringify({ app_id: owner.app_id, license: key }),
      base64: true,
    });
    expect(JSON.parse(answer.body)).toMatchObject({ success: true });
  });

  it('checks the caller\'s address from the event, so an IP blacklist holds through the HTTP API', async () => {
    await blacklist(env, owner.app_id, 'ip', '203.0.113.9');
    const { key } = await seedLicense(env.deps, subscription);
    const body = JSON.stringify({ app_id: owner.app_id, license: key });
    const listed = await throughHttpApi({ method: 'POST', path: '/auth', headers: { 'Content-Type': 'application/json' }, body, sourceIp: '203.0.113.9' });
    expect(JSON.parse(listed.body)).toEqual({ success: false, message: 'IP_BLACKLISTED' });
  });
});
