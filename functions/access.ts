/**
 * What each API-key role (functions/shared/roles.ts) may call. Plain data and
 * pure functions: the authorizer builds its policy from them and the dashboard
 * hides what a key may not do by the same rule.
 */
import { needsApiKey, routes, type Access, type Route, type RoutePath } from './routes';
import { roles, type Role } from './shared/roles';

/** The access level of the management routes each role reaches, in the order of `roles`. */
const levelOf: Record<Role, Exclude<Access, 'client' | 'customer'>> = { read_only: 'read', support: 'support', manager: 'manage', admin: 'admin' };
const levels: readonly Access[] = ['read', 'support', 'manage', 'admin'];

export type ManagementRoute = Exclude<Route, { access: 'client' | 'customer' }>;

/** Whether a key of `role` may call `route`: false for client and portal routes, which take no API key. */
export function roleMayCall(role: Role, route: Route): route is ManagementRoute {
  return needsApiKey(route) && levels.indexOf(route.access) <= levels.indexOf(levelOf[role]);
}

/** Every management route a key of `role` may call, in the route table's order. */
export function routesOf(role: Role): ManagementRoute[] {
  return routes.filter((route): route is ManagementRoute => roleMayCall(role, route));
}

const allowedPaths = new Map<Role, ReadonlySet<RoutePath>>(roles.map((role) => [role, new Set(routesOf(role).map((route) => route.path))]));

export function roleMayCallPath(role: Role, path: string): boolean {
  return allowedPaths.get(role)!.has(path as RoutePath);
}

/**
 * Routes a key limited to applications may not call whatever its role: what they make
 * (a new application) would lie outside the key's applications from the start.
 */
const beyondAppScope: ReadonlySet<RoutePath> = new Set<RoutePath>(['/app/create']);

/** Whether a key of `role`, limited to applications or not, may call `path`: the rule the service enforces and the dashboard shows. */
export function keyMayCallPath(role: Role, limitedToApps: boolean, path: string): boolean {
  return roleMayCallPath(role, path) && !(limitedToApps && beyondAppScope.has(path as RoutePath));
}
