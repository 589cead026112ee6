import type { Deps } from '#core/deps';
import { ClientError, CustomerFailure, ManagementError } from '#core/http/errors';
import type { RequestInfo } from '#core/http/handler';
import type { License } from '#data/model/license';
import type { PortalSession, PortalSettings } from '#data/model/portal';
import * as licenses from '#data/license.repo';
import { isSessions } from './licenses';
import { portalOf } from './portal-app';
import { asCustomer, signedIn } from './session';

/**
 * What a portal route that acts on one license starts with: the session, the owner's switch for
 * the action (off: 403 NOT_ALLOWED), the license of that key if it is one of the session's
 * application carrying the session's email (else 404 LICENSE_NOT_FOUND, whoever's key it is),
 * and deps that write as the customer.
 */
export async function ownLicense(
  deps: Deps,
  request: RequestInfo,
  licenseKey: string,
  allowed: (portal: PortalSettings) => boolean,
): Promise<{ session: PortalSession; license: License; asCustomer: Deps }> {
  const { session } = await signedIn(deps, request);
  const { app, portal } = await portalOf(deps, session.app_id);
  if (!allowed(portal)) throw new ManagementError('NOT_ALLOWED');
  // The license itself, read now, not the session's list: that list follows the email's lookup entries, which the
  // stream keeps and so may lag a change of the license's email, and it costs a read of every one of them.
  const license = (await licenses.candidates(deps.table, licenseKey, app.team_id)).find((found) => isSessions(found, session));
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
