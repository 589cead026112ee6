import type { Context } from 'aws-lambda';
import { ConfigError, readConfig } from '#core/config';
import type { Deps } from '#core/deps';
import { ManagementError } from '#core/http/errors';
import { createGroupHandler, type Endpoint } from '#core/http/handler';
import { createLogger } from '#core/logger';
import type { HttpEvent } from '#core/http/middleware';
import { endpointsOf, proxyEvent } from '../support/endpoints';

const dashboard = 'https://d111111abcdef8.cloudfront.net';
const deps = () => ({ config: readConfig({ MANAGEMENT_CORS_ORIGIN: dashboard }), logger: createLogger('silent', {}) }) as unknown as Deps;

const event = (path: string, method = 'POST'): HttpEvent => proxyEvent(path, '{}', { httpMethod: method, headers: { Origin: dashboard } });

const context = {} as Context;
const ok: Endpoint = async () => ({ body: { success: true } });
const management = () =>
  createGroupHandler(
    'license',
    endpointsOf('license', {
      '/license/get': async () => {
        throw new ManagementError('LICENSE_NOT_FOUND');
      },
      '/license/update-metadata': ok,
    }),
    deps,
  );
const client = () => createGroupHandler('client', endpointsOf('client', { '/auth': ok }), deps);

describe('MANAGEMENT_CORS_ORIGIN', () => {
  it('is the origin management routes allow, on preflights, successes and errors', async () => {
    const preflight = await management()(event('/license/get', 'OPTIONS'), context);
    const success = await management()(event('/license/update-metadata'), context);
    const failure = await management()(event('/license/get'), context);

    expect(preflight.statusCode).toBe(204);
    for (const response of [preflight, success, failure]) expect(response.headers?.['Access-Control-Allow-Origin']).toBe(dashboard);
    expect(failure.statusCode).toBe(404);
  });

  it('leaves client routes at * (docs/client-api.md#answers-cors-and-retries)', async () => {
    const preflight = await client()(event('/auth', 'OPTIONS'), context);
    const answer = await client()(event('/auth'), context);

    expect(preflight.headers?.['Access-Control-Allow-Origin']).toBe('*');
    expect(answer.headers?.['Access-Control-Allow-Origin']).toBe('*');
  });

  it('defaults to * and takes * or one origin, nothing else', () => {
    expect(readConfig({}).managementCorsOrigin).toBe('*');
    expect(readConfig({ MANAGEMENT_CORS_ORIGIN: '*' }).managementCorsOrigin).toBe('*');
    expect(readConfig({ MANAGEMENT_CORS_ORIGIN: 'http://localhost:3000' }).managementCorsOrigin).toBe('http://localhost:3000');
    for (const bad of [`${dashboard}/`, `${dashboard}/dashboard`, 'd111111abcdef8.cloudfront.net', 'ftp://example.com', 'https://a.example, https://b.example']) {
      expect(() => readConfig({ MANAGEMENT_CORS_ORIGIN: bad })).toThrow(ConfigError);
    }
  });
});
