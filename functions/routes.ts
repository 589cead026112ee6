/**
 * The route table: plain data read by the CDK stack, the local server and each
 * group's dispatch, so the three can never disagree about which paths exist.
 */
export type Group = 'client' | 'license' | 'hwid' | 'subscription' | 'blacklist' | 'app' | 'webhook' | 'integration';

/** Client routes answer `{success, message}`; management routes answer `{error, error_code}` and need an API key. */
export type Side = 'client' | 'management';

export const routes = [
  { path: '/auth', group: 'client' },
  { path: '/register', group: 'client' },
  { path: '/reset-hwid', group: 'client' },
  { path: '/release', group: 'client' },
  { path: '/usage', group: 'client' },

  { path: '/license/create', group: 'license' },
  { path: '/license/create-bulk', group: 'license' },
  { path: '/license/extend', group: 'license' },
  { path: '/license/extend-bulk', group: 'license' },
  { path: '/license/delete', group: 'license' },
  { path: '/license/delete-bulk', group: 'license' },
  { path: '/license/get', group: 'license' },
  { path: '/license/get-bulk', group: 'license' },
  { path: '/license/update-status', group: 'license' },
  { path: '/license/update-status-bulk', group: 'license' },
  { path: '/license/update-subscription', group: 'license' },
  { path: '/license/update-user-credentials', group: 'license' },
  { path: '/license/update-metadata', group: 'license' },
  { path: '/license/update-features', group: 'license' },
  { path: '/license/update-usage-limits', group: 'license' },
  { path: '/license/reset-usage', group: 'license' },

  { path: '/hwid/edit', group: 'hwid' },
  { path: '/hwid/toggle-lock', group: 'hwid' },
  { path: '/hwid/toggle-lock-bulk', group: 'hwid' },
  { path: '/hwid/toggle-reset-allowed', group: 'hwid' },
  { path: '/hwid/update-reset-interval', group: 'hwid' },
  { path: '/hwid/set-max-devices', group: 'hwid' },
  { path: '/hwid/remove', group: 'hwid' },
  { path: '/hwid/set-lease', group: 'hwid' },

  { path: '/subscription/create', group: 'subscription' },
  { path: '/subscription/edit', group: 'subscription' },
  { path: '/subscription/delete', group: 'subscription' },
  { path: '/subscription/get-bulk', group: 'subscription' },

  { path: '/blacklist/add', group: 'blacklist' },
  { path: '/blacklist/delete', group: 'blacklist' },
  { path: '/blacklist/get-bulk', group: 'blacklist' },

  { path: '/app/list', group: 'app' },
  { path: '/app/settings', group: 'app' },
  { path: '/app/signing-key', group: 'app' },
  { path: '/app/stats', group: 'app' },
  { path: '/app/create', group: 'app' },
  { path: '/app/update', group: 'app' },
  { path: '/app/rotate-signing-key', group: 'app' },
  { path: '/audit/get-bulk', group: 'app' },

  { path: '/webhook/create', group: 'webhook' },
  { path: '/webhook/list', group: 'webhook' },
  { path: '/webhook/update', group: 'webhook' },
  { path: '/webhook/delete', group: 'webhook' },
  { path: '/webhook/rotate-secret', group: 'webhook' },
  { path: '/webhook/deliveries', group: 'webhook' },
  { path: '/webhook/redeliver', group: 'webhook' },
  { path: '/integration/stripe/set', group: 'integration' },
  { path: '/integration/stripe/get', group: 'integration' },
  { path: '/integration/stripe/delete', group: 'integration' },
  { path: '/integration/stripe/licenses', group: 'integration' },
] as const satisfies readonly { path: string; group: Group }[];

export type Route = (typeof routes)[number];
export type RoutePath = Route['path'];

/**
 * Routes another service POSTs its own events to, in its own body format and
 * signed its own way: no API key and no authorizer (the group verifies the
 * signature), a throttle of their own, and the writes they make recorded as
 * `actor`. Not in `routes`, whose routes all take the JSON bodies of
 * docs/management-api.md or docs/client-api.md. `{app_id}` is the path's one
 * parameter.
 */
export const inboundRoutes = [{ path: '/stripe/webhook/{app_id}', group: 'integration', actor: 'stripe' }] as const satisfies readonly {
  path: string;
  group: Group;
  actor: string;
}[];

export type InboundRoute = (typeof inboundRoutes)[number];
export type InboundPath = InboundRoute['path'];
export type PathOf<G extends Group> = Extract<Route | InboundRoute, { group: G }>['path'];

/** Every Lambda of the service: one per group, the API-key authorizer, the events consumer, the OpenAPI document's and the webhooks' delivery function. */
export type FunctionName = Group | 'authorizer' | 'events' | 'openapi' | 'delivery';


/** The delivery function's entry: it has no route (docs/webhooks.md#on-aws). */
export const deliveryEntry = 'functions/delivery/handler.ts';
export const groups: readonly Group[] = ['client', 'license', 'hwid', 'subscription', 'blacklist', 'app', 'webhook', 'integration'];

export function sideOf(group: Group): Side {
  return group === 'client' ? 'client' : 'management';
}

const byPath = new Map<string, Route>(routes.map((route) => [route.path, route]));

export function findRoute(path: string): Route | undefined {
  return byPath.get(path);
}

/** The inbound route a request path names, with its parameters as sent: a parameter is one path segment, never empty. */
export function findInboundRoute(path: string): { route: InboundRoute; parameters: Record<string, string> } | undefined {
  for (const route of inboundRoutes) {
    const names: string[] = [];
    const pattern = route.path.replace(/\{([a-z_]+)\}/g, (_match, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    const match = new RegExp(`^${pattern}$`).exec(path);
    if (match) return { route, parameters: Object.fromEntries(names.map((name, index) => [name, match[index + 1]!])) };
  }
  return undefined;
}

/** Every group's Lambda entry file, relative to the project root. */
export function handlerEntry(group: Group): string {
  return `functions/${group}/handler.ts`;
}

export const authorizerEntry = 'functions/authorizer/handler.ts';

/**
 * The OpenAPI document (functions/openapi/), answered to GET without an API key
 * by the local server and the deployed API. Not in `routes`: it is no POST
 * route of a group, and the document describes the routes, not itself.
 */
export const openApiPath = '/openapi.json';

/** The document's headers on both servers: any origin may read it, and no browser may read it as anything but JSON. */
export const openApiHeaders = { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*', 'X-Content-Type-Options': 'nosniff' } as const;
