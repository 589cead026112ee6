import type { Deps } from '#core/deps';
import { ClientError, CustomerFailure, ManagementError } from '#core/http/errors';
import type { RequestInfo } from '#core/http/handler';
import type { License } from '#data/model/license';
import type { PortalSession, PortalSettings } from '#data/model/portal';
import { licensesOfSession } from './licenses';
import { portalOf } from './portal-app';
import { asCustomer, signedIn } from './session';

/**
 * What a portal route that acts on one license starts with: the session, the owner's switch for
 * the action (off: 403 NOT_ALLOWED), the key among the session's licenses (else 404
 * LICENSE_NOT_FOUND, whoever's key it is), and deps that write as the customer.
 */
export async function ownLicense(
  deps: Deps,
  request: RequestInfo,
  licenseKey: string,
  allowed: (portal: PortalSettings) => boolean,
): Promise<{ session: PortalSession; license: License; asCustomer: Deps }> {
  const { session } = await signedIn(deps, request);
  const { portal } = await portalOf(deps, session.app_id);
  if (!allowed(portal)) throw new ManagementError('NOT_ALLOWED');
  const license = (await licensesOfSession(deps, session)).find((owned) => owned.key === licenseKey);
  if (!license) throw new ManagementError('LICENSE_NOT_FOUND');
  return { session, license, asCustomer: asCustomer(deps, session.email_fingerprint) };
}

/** A client route's action run for a customer: its 403s answered in the management shape, with their codes. */
export async function asClientAction<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof ClientError && error.status === 403) throw new CustomerFailure(error);
    throw error;
  }
}
