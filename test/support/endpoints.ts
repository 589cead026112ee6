import type { Endpoint, Endpoints } from '#core/http/handler';
import type { HttpEvent } from '#core/http/middleware';
import { routes, type Group, type PathOf } from '../../functions/routes';

/**
 * A group's endpoint table for tests of the handler's wiring: the endpoints given,
 * and for every other path of the group one that fails the request if it runs.
 */
export function endpointsOf<G extends Group>(group: G, given: Partial<Endpoints<G>>): Endpoints<G> {
  const unexpected = (path: string): Endpoint => async () => {
    throw new Error(`no test endpoint for ${path}`);
  };
  const paths = routes.filter((route) => route.group === group).map((route) => route.path as PathOf<G>);
  return Object.fromEntries(paths.map((path) => [path, given[path] ?? unexpected(path)])) as Endpoints<G>;
}

/** An API Gateway proxy event for a POST of `body` to `path`, as a group's Lambda receives it; `extra` replaces any part. */
export function proxyEvent(path: string, body: string | null = '{}', extra: Partial<HttpEvent> = {}): HttpEvent {
  return {
    resource: path,
    path,
    httpMethod: 'POST',
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
