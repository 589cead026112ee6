import type { Deps } from '#core/deps';
import type { RequestInfo } from '#core/http/handler';
import { resetHwid } from '../client/reset-hwid';
import { asClientAction, ownLicense } from './own-license';

/**
 * `POST /portal/release-device` (docs/portal.md): /reset-hwid's reset of one device of one of the
 * customer's licenses, under the same rules and codes, written as the customer; a borrowed seat
 * is released too. The customer's own address is no blacklist probe: the device is not calling.
 */
export async function releaseDevice(deps: Deps, input: { license_key: string; hwid: string }, request: RequestInfo): Promise<undefined> {
  const { session, asCustomer } = await ownLicense(deps, request, input.license_key, (portal) => portal.allow_device_release);
  await asClientAction(() => resetHwid(asCustomer, { appId: session.app_id, credential: { license: input.license_key }, hwid: input.hwid }, [], { releaseBorrowed: true }));
  return undefined;
}
