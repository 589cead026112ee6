/**
 * The route table: plain data read by the CDK stack, the local server and each
 * group's dispatch, so the three can never disagree about which paths exist.
 */
export type Group = 'client' | 'license' | 'hwid' | 'subscription' | 'blacklist' | 'app' | 'webhook' | 'integration' | 'portal';

/** Client routes answer `{success, message}`; management routes answer `{error, error_code}` and need an API key. */
export type Side = 'client' | 'management';

/**
 * Who may call a route. Client routes need no API key; a management route names
 * the least API-key role that may call it, each role reaching what the ones
 * below it reach: `read` (read_only), `support`, `manage` (manager), `admin`.
 * functions/access.ts turns this into each role's routes; docs/api-keys.md lists them.
 * `customer`: the customer portal's routes (docs/portal.md), answered in the management
 * shapes but taking no API key: the portal group checks a customer's code or session itself.
 */
export type Access = 'client' | 'customer' | 'read' | 'support' | 'manage' | 'admin';

/** A route entry: client and portal routes are open to everyone; every other management route names its access. */
export type RouteEntry =
  | { path: string; group: 'client'; access: 'client' }
  | { path: string; group: 'portal'; access: 'customer' }
  | { path: string; group: Exclude<Group, 'client' | 'portal'>; access: Exclude<Access, 'client' | 'customer'> };

export const routes = [
  { path: '/auth', group: 'client', access: 'client' },
  { path: '/register', group: 'client', access: 'client' },
  { path: '/reset-hwid', group: 'client', access: 'client' },
  { path: '/release', group: 'client', access: 'client' },
  { path: '/usage', group: 'client', access: 'client' },
  { path: '/license-file', group: 'client', access: 'client' },
  { path: '/license-file/return', group: 'client', access: 'client' },
  { path: '/trial', group: 'client', access: 'client' },

  { path: '/license/create', group: 'license', access: 'manage' },
  { path: '/license/create-bulk', group: 'license', access: 'manage' },
  { path: '/license/extend', group: 'license', access: 'support' },
  { path: '/license/extend-bulk', group: 'license', access: 'manage' },
  { path: '/license/delete', group: 'license', access: 'manage' },
  { path: '/license/delete-bulk', group: 'license', access: 'manage' },
  { path: '/license/get', group: 'license', access: 'read' },
  { path: '/license/get-bulk', group: 'license', access: 'read' },
  { path: '/license/find', group: 'license', access: 'read' },
  { path: '/license/update-status', group: 'license', access: 'support' },
  { path: '/license/update-status-bulk', group: 'license', access: 'manage' },
  { path: '/license/update-subscription', group: 'license', access: 'manage' },
  { path: '/license/update-user-credentials', group: 'license', access: 'support' },
  { path: '/license/update-metadata', group: 'license', access: 'manage' },
  { path: '/license/update-features', group: 'license', access: 'manage' },
  { path: '/license/update-usage-limits', group: 'license', access: 'manage' },
  { path: '/license/reset-usage', group: 'license', access: 'manage' },
  { path: '/license/update-email', group: 'license', access: 'manage' },

  { path: '/hwid/edit', group: 'hwid', access: 'support' },
  { path: '/hwid/toggle-lock', group: 'hwid', access: 'manage' },
  { path: '/hwid/toggle-lock-bulk', group: 'hwid', access: 'manage' },
  { path: '/hwid/toggle-reset-allowed', group: 'hwid', access: 'manage' },
  { path: '/hwid/update-reset-interval', group: 'hwid', access: 'manage' },
  { path: '/hwid/set-max-devices', group: 'hwid', access: 'manage' },
  { path: '/hwid/remove', group: 'hwid', access: 'support' },
  { path: '/hwid/set-lease', group: 'hwid', access: 'manage' },

  { path: '/subscription/create', group: 'subscription', access: 'manage' },
  { path: '/subscription/edit', group: 'subscription', access: 'manage' },
  { path: '/subscription/delete', group: 'subscription', access: 'manage' },
  { path: '/subscription/get-bulk', group: 'subscription', access: 'read' },

  { path: '/blacklist/add', group: 'blacklist', access: 'manage' },
  { path: '/blacklist/delete', group: 'blacklist', access: 'manage' },
  { path: '/blacklist/get-bulk', group: 'blacklist', access: 'read' },

  { path: '/app/list', group: 'app', access: 'read' },
  { path: '/app/settings', group: 'app', access: 'manage' },
  { path: '/app/signing-key', group: 'app', access: 'read' },
  { path: '/app/stats', group: 'app', access: 'read' },
  { path: '/app/create', group: 'app', access: 'admin' },
  { path: '/app/update', group: 'app', access: 'admin' },
  { path: '/app/rotate-signing-key', group: 'app', access: 'admin' },
  { path: '/audit/get-bulk', group: 'app', access: 'read' },
  { path: '/apikey/create', group: 'app', access: 'admin' },
  { path: '/apikey/list', group: 'app', access: 'admin' },
  { path: '/apikey/revoke', group: 'app', access: 'admin' },
  { path: '/apikey/current', group: 'app', access: 'read' },

  { path: '/webhook/create', group: 'webhook', access: 'manage' },
  { path: '/webhook/list', group: 'webhook', access: 'read' },
  { path: '/webhook/update', group: 'webhook', access: 'manage' },
  { path: '/webhook/delete', group: 'webhook', access: 'manage' },
  { path: '/webhook/rotate-secret', group: 'webhook', access: 'manage' },
  { path: '/webhook/deliveries', group: 'webhook', access: 'read' },
  { path: '/webhook/redeliver', group: 'webhook', access: 'manage' },
  { path: '/integration/stripe/set', group: 'integration', access: 'manage' },
  { path: '/integration/stripe/get', group: 'integration', access: 'read' },
  { path: '/integration/stripe/delete', group: 'integration', access: 'manage' },
  { path: '/integration/stripe/licenses', group: 'integration', access: 'read' },

  { path: '/portal/app', group: 'portal', access: 'customer' },
  { path: '/portal/sign-in', group: 'portal', access: 'customer' },
  { path: '/portal/verify', group: 'portal', access: 'customer' },
  { path: '/portal/sign-out', group: 'portal', access: 'customer' },
  { path: '/portal/licenses', group: 'portal', access: 'customer' },
  { path: '/portal/release-device', group: 'portal', access: 'customer' },
  { path: '/portal/license-file', group: 'portal', access: 'customer' },
  { path: '/portal/billing', group: 'portal', access: 'customer' },
] as const satisfies readonly RouteEntry[];

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
export const groups: readonly Group[] = ['client', 'license', 'hwid', 'subscription', 'blacklist', 'app', 'webhook', 'integration', 'portal'];

export function sideOf(group: Group): Side {
  return group === 'client' ? 'client' : 'management';
}

/** Whether a route takes an owner's API key: not client routes, nor the customer portal's. */
export function needsApiKey(route: Route): route is Extract<Route, { access: Exclude<Access, 'client' | 'customer'> }> {
  return route.access !== 'client' && route.access !== 'customer';
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
