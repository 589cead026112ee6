import { forRequest, type Deps } from '#core/deps';
import { ClientError, CustomerFailure, ManagementError } from '#core/http/errors';
import type { RequestInfo } from '#core/http/handler';
import { resetHwid } from '../client/reset-hwid';
import { licensesOfSession } from './licenses';
import { portalOf } from './portal-app';
import { signedIn } from './session';

/**
 * `POST /portal/release-device` (docs/portal.md): /reset-hwid's reset of one device of one of the
 * customer's licenses, under the same rules and codes, written as the customer; a borrowed seat
 * is released too. The customer's own address is no blacklist probe: the device is not calling.
 */
export async function releaseDevice(deps: Deps, input: { license_key: string; hwid: string }, request: RequestInfo): Promise<undefined> {
  const { session } = await signedIn(deps, request);
  const { portal } = await portalOf(deps, session.app_id);
  if (!portal.allow_device_release) throw new ManagementError('NOT_ALLOWED');
  const owned = await licensesOfSession(deps, session);
  if (!owned.some((license) => license.key === input.license_key)) throw new ManagementError('LICENSE_NOT_FOUND');
  const asCustomer = forRequest(deps, undefined, `customer:${session.email_fingerprint}`);
  try {
    await resetHwid(asCustomer, { appId: session.app_id, credential: { license: input.license_key }, hwid: input.hwid }, [], { releaseBorrowed: true });
  } catch (error) {
    if (error instanceof ClientError && error.status === 403) throw new CustomerFailure(error);
    throw error;
  }
  return undefined;
}
