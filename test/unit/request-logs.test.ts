import type { Context } from 'aws-lambda';
import { readConfig } from '#core/config';
import type { Deps } from '#core/deps';
import { createGroupHandler, type Endpoint } from '#core/http/handler';
import type { HttpEvent } from '#core/http/middleware';
import { createLogger, type Logger } from '#core/logger';
import { endpointsOf, proxyEvent } from '../support/endpoints';
import { recordingSink } from '../support/log-evidence';

const lines: string[] = [];
const logger = createLogger('debug', {}, recordingSink(lines));
const deps = () => ({ config: readConfig({}), logger }) as unknown as Deps;
const logged = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

const event = (path: string, requestId: string) =>
  proxyEvent(path, '{}', { requestContext: { requestId, identity: { sourceIp: '192.0.2.1' } } as HttpEvent['requestContext'] });

/** Code a few calls and timers below the endpoint, logging with the deps' logger as a repository would: no request id passed down. */
async function deepWork(log: Logger, license: string): Promise<void> {
  await new Promise((done) => setTimeout(done, 5));
  log.debug('deep read', { license_key: license });
  await Promise.all([1, 2].map(async (part) => log.info('deep part', { part })));
}

const working: Endpoint = async (requestDeps) => {
  await deepWork(requestDeps.logger, 'KEY-1');
  return { body: { success: true } };
};
const failing: Endpoint = async (requestDeps) => {
  await deepWork(requestDeps.logger, 'KEY-2');
  throw new TypeError('exploded below');
};

const handler = createGroupHandler('license', endpointsOf('license', { '/license/get': working, '/license/extend': failing }), deps);

beforeEach(() => {
  lines.length = 0;
});

describe('request-scoped log lines', () => {
  it('carry the request_id on every line written during a request, deep code and the error renderer alike', async () => {
    const answer = await handler(event('/license/extend', 'req-fail'), {} as Context);

    expect(answer.statusCode).toBe(500);
    expect(logged().map((line) => [line.message, line.request_id])).toEqual([
      ['deep read', 'req-fail'],
      ['deep part', 'req-fail'],
      ['deep part', 'req-fail'],
      ['request failed', 'req-fail'],
    ]);
  });

  it('keeps concurrent requests apart, and a line outside any request carries none', async () => {
    await Promise.all([handler(event('/license/get', 'req-a'), {} as Context), handler(event('/license/extend', 'req-b'), {} as Context)]);
    logger.info('between requests');

    const byRequest = (id: string) => logged().filter((line) => line.request_id === id).map((line) => line.message);
    expect(byRequest('req-a')).toEqual(['deep read', 'deep part', 'deep part']);
    expect(byRequest('req-b')).toEqual(['deep read', 'deep part', 'deep part', 'request failed']);
    expect(logged().filter((line) => line.request_id === undefined).map((line) => line.message)).toEqual(['between requests']);
  });

  it('still redacts secret fields on the lines it adds the id to', async () => {
    await handler(event('/license/get', 'req-c'), {} as Context);

    const deep = logged().find((line) => line.message === 'deep read');
    expect(deep).toMatchObject({ request_id: 'req-c', license_key: '[redacted]' });
    expect(lines.join('\n')).not.toContain('KEY-1');
  });
});
