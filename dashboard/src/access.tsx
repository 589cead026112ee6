import { createContext, type ComponentChildren } from 'preact';
import { useContext } from 'preact/hooks';
import { defaultRole, roleMayCallPath, type Role } from '../../functions/access';

export type { Role };

/**
 * The signed-in key's role, from /apikey/current (docs/api-keys.md#the-dashboard).
 * Screens hide what the role may not call by the same rule the service enforces,
 * read from the same route table.
 */
export const RoleContext = createContext<Role>(defaultRole);

export function useCan(): (path: string) => boolean {
  const role = useContext(RoleContext);
  return (path) => roleMayCallPath(role, path);
}

/** Its children only when the signed-in key's role may call `path`. */
export function Can({ path, children }: { path: string; children: ComponentChildren }) {
  return useCan()(path) ? <>{children}</> : null;
}
