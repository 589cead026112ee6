import { forRequest, type Deps } from '#core/deps';
import type { RequestInfo } from '#core/http/handler';
import { ManagementError } from '#core/http/errors';
import { isPortalTokenFormat, sha256Hex } from '#core/ids';
import type { PortalSession } from '#data/model/portal';
import * as portals from '#data/portal.repo';

export interface SignedIn {
  session: PortalSession;
  tokenHash: string;
}

/** The session of `Authorization: Bearer lps_…`, live and unexpired; anything else is 401 INVALID_SESSION. */
export async function signedIn(deps: Deps, request: RequestInfo): Promise<SignedIn> {
  const token = /^Bearer (\S+)$/.exec(request.header('authorization') ?? '')?.[1];
  if (token === undefined || !isPortalTokenFormat(token)) throw new ManagementError('INVALID_SESSION');
  const tokenHash = sha256Hex(token);
  const session = await portals.getSession(deps.table, tokenHash);
  // The table's TTL removes an item some time after it expired: the time is checked here.
  if (!session || session.expires_at <= Math.floor(deps.clock.now().getTime() / 1000)) throw new ManagementError('INVALID_SESSION');
  return { session, tokenHash };
}

/** `POST /portal/sign-out`: the session ends at once; its token reaches nothing from the next request on. */
export async function signOut(deps: Deps, _input: unknown, request: RequestInfo): Promise<undefined> {
  const { tokenHash } = await signedIn(deps, request);
  await portals.deleteSession(deps.table, tokenHash);
  return undefined;
}

/** Deps whose writes carry the customer as their actor (`customer:<fingerprint>`), for events and the audit log. */
export function asCustomer(deps: Deps, emailFingerprint: string): Deps {
  return forRequest(deps, undefined, `customer:${emailFingerprint}`);
}
