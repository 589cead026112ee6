import middy from '@middy/core';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import { keyMayCallPath } from '../../access';
import { defaultRole, roles, type Role } from '#shared/roles';
import { findRoute, inboundRoutes, needsApiKey, sideOf, type Group, type PathOf, type Side } from '../../routes';
import { guardAppScope } from './app-scope';
import { missingApiKey } from './api-key-auth';
import { ManagementError } from './errors';
import { forRequest, type Deps } from '../deps';
import { bodyGuard, cors, errorRenderer, jsonBody, jsonResponse, normalizeHeaders, rawBodyOf, type HttpEvent } from './middleware';
import { validate } from './validation';

/** What an endpoint learns about a request beyond its body. */
export interface RequestInfo {
  requestId: string;
  path: string;
  /** API Gateway's source IP (the socket's address on the local server). */
  sourceIp: string;
  /** Header lookup by lower-cased name. */
  header(name: string): string | undefined;
  /** A parameter of the path (`{app_id}` of an inbound route), as API Gateway passes it. */
  pathParameter(name: string): string | undefined;
  /** The body's bytes as received, before JSON parsing. */
  rawBody: Uint8Array;
  /** The owner, as the API-key authorizer resolved it; absent on client routes. */
  teamId: string | undefined;
  /** Who the request's writes are recorded as: the authorizer's `actor` on management routes, `client` on client routes. */
  actor: string | undefined;
  /** The applications the API key is limited to; undefined: all of the team's (and on client routes). */
  apps: ReadonlySet<string> | undefined;
  /** The role of the request's API key; undefined on client routes. */
  role: Role | undefined;
  /** The API Gateway key the team is metered under, on deployed stacks. */
  usageIdentifierKey: string | undefined;
}

export interface Reply {
  status?: number;
  body: unknown;
}

export type Endpoint = (deps: Deps, body: unknown, request: RequestInfo) => Promise<Reply>;
/** Every path of the group's routes has its endpoint: a route added to the table without one does not compile. */
export type Endpoints<G extends Group> = Record<PathOf<G>, Endpoint>;

/** `event` as the Middy stack left it: header names are lower-cased. */
function requestInfo(event: HttpEvent): RequestInfo {
  const headers = event.headers ?? {};
  const authorizer = event.requestContext?.authorizer as Record<string, unknown> | null | undefined;
  const teamId = authorizer?.team_id;
  const actor = authorizer?.actor;
  const usageIdentifierKey = authorizer?.usage_identifier_key;
  return {
    requestId: event.requestContext?.requestId ?? '',
    path: event.resource,
    sourceIp: event.requestContext?.identity?.sourceIp ?? '',
    header: (name) => headers[name.toLowerCase()],
    pathParameter: (name) => event.pathParameters?.[name] ?? undefined,
    rawBody: rawBodyOf(event),
    teamId: typeof teamId === 'string' ? teamId : undefined,
    actor: typeof actor === 'string' ? actor : undefined,
    apps: appsOf(event),
    role: authorizer ? roleOf(event) : undefined,
    usageIdentifierKey: typeof usageIdentifierKey === 'string' ? usageIdentifierKey : undefined,
  };
}

/**
 * The role the authorizer resolved. A decision API Gateway cached before keys
 * had roles carries none, and every key had full rights then; a value that is
 * no role is a wiring fault and reaches nothing.
 */
function roleOf(event: HttpEvent): Role | undefined {
  const role = (event.requestContext?.authorizer as Record<string, unknown> | null | undefined)?.role;
  if (role === undefined) return defaultRole;
  return roles.find((known) => known === role);
}

/** The applications the API key is limited to, as the authorizer passed them; undefined: all of its team's. */
function appsOf(event: HttpEvent): ReadonlySet<string> | undefined {
  const apps = (event.requestContext?.authorizer as Record<string, unknown> | null | undefined)?.apps;
  return typeof apps === 'string' ? new Set(apps.split(',')) : undefined;
}

/**
 * A management route the API key may not call (by its role, or as a key limited to
 * applications: functions/access.ts) answers 403 ACCESS_DENIED
 * before its body is read, on AWS and on the local server alike, from the
 * route table's access (docs/api-keys.md). Inbound and portal routes take no API key.
 */
function roleGuard(): middy.MiddlewareObj<HttpEvent, APIGatewayProxyResult> {
  return {
    before: ({ event }) => {
      const route = findRoute(event.resource);
      // A path of no management route never reaches a group's stack on a deployment: the handler reports it as the wiring fault it is.
      if (!route || !needsApiKey(route)) return;
      const role = roleOf(event);
      if (!role || !keyMayCallPath(role, appsOf(event) !== undefined, route.path)) throw new ManagementError('ACCESS_DENIED');
    },
  };
}

/**
 * A management route: body validated by its schema, then the action runs with the
 * owner's team ID. The authorizer guarantees an owner; its absence is a wiring fault.
 */
export function managementEndpoint<S extends z.ZodMiniType, O>(
  schema: S,
  action: (deps: Deps, input: OwnerInput<S>) => Promise<O>,
): Endpoint {
  return async (deps, body, request) => {
    const data = await action(deps, await ownerInput(deps, schema, body, request));
    return { body: { success: true, data } };
  };
}

/**
 * A route that takes no API key but answers in the management shapes (the customer portal's):
 * the body validated by its schema, then the action with the request (its headers, address).
 * An action that answers nothing gives `{success: true}` alone.
 */
export function publicEndpoint<S extends z.ZodMiniType, O>(
  schema: S,
  action: (deps: Deps, input: z.infer<S>, request: RequestInfo) => Promise<O>,
  status = 200,
): Endpoint {
  return async (deps, body, request) => {
    const data = await action(deps, validate('management', schema, body), request);
    return { status, body: data === undefined ? { success: true } : { success: true, data } };
  };
}

/** The validated body with the owner the authorizer resolved and API Gateway's id of the request. */
export type OwnerInput<S extends z.ZodMiniType> = z.infer<S> & { teamId: string; requestId: string };

/** The API key a request came with, as the authorizer resolved it: what the /apikey routes need beyond the team. */
export interface CallingKey {
  role: Role;
  /** Undefined: every application of the team. */
  apps: readonly string[] | undefined;
  usageIdentifierKey: string | undefined;
}

/** A management route whose action also learns the calling key (its role, applications and metering). */
export function callingKeyEndpoint<S extends z.ZodMiniType, O>(
  schema: S,
  action: (deps: Deps, input: OwnerInput<S>, key: CallingKey) => Promise<O>,
): Endpoint {
  return async (deps, body, request) => {
    const input = await ownerInput(deps, schema, body, request);
    if (!request.role) throw new ManagementError('ACCESS_DENIED');
    const key: CallingKey = { role: request.role, apps: request.apps ? [...request.apps] : undefined, usageIdentifierKey: request.usageIdentifierKey };
    return { body: { success: true, data: await action(deps, input, key) } };
  };
}

/**
 * The body as its schema reads it, with the owner: every management route's
 * input comes from here, so this is where a key limited to applications meets
 * what the body names of the others (`guardAppScope`), after the role guard
 * let the route through and before the route's own code runs.
 */
async function ownerInput<S extends z.ZodMiniType>(deps: Deps, schema: S, body: unknown, request: RequestInfo): Promise<OwnerInput<S>> {
  const input = validate('management', schema, body);
  if (!request.teamId) throw missingApiKey();
  await guardAppScope(deps, request.teamId, input as Record<string, unknown>);
  return { ...(input as object), teamId: request.teamId, requestId: request.requestId } as OwnerInput<S>;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** A management list route: `{success, data, next_cursor}`. */
export function managementListEndpoint<S extends z.ZodMiniType, T>(
  schema: S,
  action: (deps: Deps, input: OwnerInput<S>) => Promise<Page<T>>,
): Endpoint {
  return async (deps, body, request) => {
    const page = await action(deps, await ownerInput(deps, schema, body, request));
    return { body: { success: true, data: page.items, next_cursor: page.nextCursor } };
  };
}

export type DepsSource = () => Deps | Promise<Deps>;

/** What a request's bulk work keeps for the writes in flight when it stops starting new ones, and for its answer. */
const answerReserveMs = 10_000;

/**
 * Until when a management request may start bulk work: `bulkWorkSeconds` after
 * API Gateway received it, and never so late that the writes then in flight and
 * the answer could not fit in the Lambda's remaining time.
 */
function workUntil(event: HttpEvent, context: Context, bulkWorkSeconds: number): number {
  const now = Date.now();
  const received = event.requestContext?.requestTimeEpoch || now;
  const remaining = typeof context.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : Infinity;
  return Math.min(received + bulkWorkSeconds * 1000, now + remaining - answerReserveMs);
}

/** Who an inbound route's writes are recorded as: the service that called it, not an owner's key. */
const inboundActors = new Map<string, string>(inboundRoutes.map((route) => [route.path, route.actor]));

/**
 * A group's own layer around every answer: the client group signs its answers
 * with it (answer-signing.ts). Passed in by the group, so groups without it do
 * not bundle its code.
 */
export interface AnswerLayer {
  middleware(deps: DepsSource): middy.MiddlewareObj<HttpEvent, APIGatewayProxyResult>;
}

/**
 * The Lambda context as Middy hands it on, once the handler ran: the deps the
 * request worked with, so a layer after it (the answer's signature) uses what
 * the request already read instead of reading it again.
 */
export interface RequestContext extends Context {
  requestDeps?: Deps;
}

/**
 * One Lambda per group: Middy wiring and dispatch by API Gateway resource path.
 * The stack and the local server send a group's Lambda only its own paths, so a
 * path without an endpoint here is a wiring fault: a 500. Every line logged
 * while a request runs, by the handler or anything below it, carries its `request_id`.
 */
export function createGroupHandler<G extends Group>(group: G, endpoints: Endpoints<G>, deps: DepsSource, layer?: AnswerLayer) {
  const side: Side = sideOf(group);
  // Before: preflight, headers, body checks, parsing. After and onError run in
  // reverse: the renderer, then the group's layer (the client routes' signature
  // over the final body), then CORS on the answer.
  const handler = middy<HttpEvent, APIGatewayProxyResult>()
    // The portal's routes take a customer's token in a header, never a cookie: any origin may call them (docs/security.md#threat-model).
    .use(cors(side, async () => (group === 'portal' ? '*' : (await deps()).config.managementCorsOrigin)))
    .use(layer ? [layer.middleware(deps)] : [])
    .use(errorRenderer(side, deps))
    .use(normalizeHeaders())
    .use(side === 'management' ? [roleGuard()] : [])
    .use(bodyGuard(side))
    .use(jsonBody())
    .handler(async (event, context: RequestContext) => {
      const endpoint = (endpoints as Partial<Record<string, Endpoint>>)[event.resource];
      if (!endpoint) throw new Error(`${event.resource} is not a route of the ${group} group`);
      // http-json-body-parser replaced the text with the value it holds.
      const parsedBody: unknown = event.body;
      const request = requestInfo(event);
      const actor = inboundActors.get(event.resource) ?? (side === 'client' ? 'client' : request.actor);
      const groupDeps = await deps();
      const until = side === 'management' ? workUntil(event, context, groupDeps.config.bulkWorkSeconds) : undefined;
      context.requestDeps = forRequest(groupDeps, request.requestId, actor, request.apps, until);
      const reply = await endpoint(context.requestDeps, parsedBody, request);
      return jsonResponse(reply.status ?? 200, reply.body);
    });
  return (event: HttpEvent, context: RequestContext): Promise<APIGatewayProxyResult> => {
    // Lambda gives each request a context of its own; a caller that passes one again must not see the last request's deps.
    delete context.requestDeps;
    return handler(event, context);
  };
}

export type GroupHandler = ReturnType<typeof createGroupHandler>;
