import { readFileSync } from 'node:fs';
import path from 'node:path';
import { keyMayCallPath, roleMayCall, roleMayCallPath, routesOf } from '../../functions/access';
import { defaultRole, roles } from '#shared/roles';
import { routes } from '../../functions/routes';

const root = path.resolve(import.meta.dirname, '../..');
// The customer portal's routes take no API key either (docs/portal.md).
const managementRoutes = routes.filter((route) => route.access !== 'client' && route.access !== 'customer');

describe('API-key roles from the route table', () => {
  it('give each role every route of the roles before it, and more', () => {
    for (const [index, role] of roles.entries()) {
      const reached = routesOf(role).map((route) => route.path);
      if (index > 0) expect(reached).toEqual(expect.arrayContaining(routesOf(roles[index - 1]!).map((route) => route.path)));
      if (index > 0) expect(reached.length).toBeGreaterThan(routesOf(roles[index - 1]!).length);
    }
  });

  it('give admin every management route, and no role a client or portal route', () => {
    expect(routesOf('admin').map((route) => route.path)).toEqual(managementRoutes.map((route) => route.path));
    for (const role of roles) {
      for (const route of routes.filter((candidate) => candidate.access === 'client' || candidate.access === 'customer')) {
        expect(roleMayCall(role, route)).toBe(false);
        expect(roleMayCallPath(role, route.path)).toBe(false);
      }
    }
  });

  it('let read_only call exactly the routes marked read', () => {
    expect(routesOf('read_only').map((route) => route.path)).toEqual(managementRoutes.filter((route) => route.access === 'read').map((route) => route.path));
  });

  it('count a key without a stored role as admin, so keys from before roles keep their rights', () => {
    expect(defaultRole).toBe('admin');
  });

  it('answer false for a path that is no route', () => {
    expect(roleMayCallPath('admin', '/no/such/route')).toBe(false);
  });

  it('refuse a key limited to applications only the route that makes an application, at every role', () => {
    for (const role of roles) {
      for (const route of managementRoutes) {
        const expected = roleMayCall(role, route) && route.path !== '/app/create';
        expect({ role, path: route.path, limited: keyMayCallPath(role, true, route.path) }).toEqual({ role, path: route.path, limited: expected });
        expect(keyMayCallPath(role, false, route.path)).toBe(roleMayCall(role, route));
      }
    }
  });

  it('are what docs/api-keys.md lists, route by route', () => {
    const page = readFileSync(path.join(root, 'docs/api-keys.md'), 'utf8');
    const rows = [...page.matchAll(/^\| `(\/[^`]+)` \|(.*)\|$/gm)].map(([, route, cells]) => [route, cells!.split('|').map((cell) => cell.trim() === 'yes')]);
    expect(rows).toEqual(managementRoutes.map((route) => [route.path, roles.map((role) => roleMayCall(role, route))]));
  });
});
