import { createContext, type ComponentChildren, type JSX } from 'preact';
import { useContext } from 'preact/hooks';
import { keyMayCallPath } from '../../functions/access';
import { defaultRole, type Role } from '../../functions/shared/roles';

export type { Role };

/** The signed-in key's role and whether it is limited to applications, from /apikey/current. */
export interface KeyAccess {
  role: Role;
  limitedToApps: boolean;
}

/**
 * The signed-in key's access (docs/api-keys.md#the-dashboard). Screens hide what
 * the key may not call by the same rule the service enforces, read from the same
 * route table.
 */
export const AccessContext = createContext<KeyAccess>({ role: defaultRole, limitedToApps: false });

export function useCan(): (path: string) => boolean {
  const { role, limitedToApps } = useContext(AccessContext);
  return (path) => keyMayCallPath(role, limitedToApps, path);
}

/** Its children only when the signed-in key may call `path`. */
export function Can({ path, children }: { path: string; children: ComponentChildren }) {
  return useCan()(path) ? <>{children}</> : null;
}

/**
 * A card whose form writes through `path`: a form for a key that may call it, and
 * otherwise the same card without a form, so what it shows stays (its controls are
 * each wrapped in `Can`).
 */
export function CardForm({ path, children, ...form }: { path: string; children: ComponentChildren } & JSX.HTMLAttributes<HTMLFormElement>) {
  if (useCan()(path)) return <form {...form}>{children}</form>;
  return (
    <div class={form.class as string | undefined} aria-label={form['aria-label'] as string | undefined} role="group">
      {children}
    </div>
  );
}
