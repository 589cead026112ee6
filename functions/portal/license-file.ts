import type { Deps } from '#core/deps';
import { ClientError, invalidInput } from '#core/http/errors';
import type { RequestInfo } from '#core/http/handler';
import { checkOutLicenseFile } from '../client/license-file';
import { licenseFileBody } from '../client/schemas';
import { asClientAction, ownLicense } from './own-license';

const notThisLicense = 'request: must be an activation request (lfr1.…) made for this license of this application';

/** The activation request's fields, when it decodes and names this license of the session's application. */
function activationFor(request: string, appId: string, licenseKey: string) {
  let asked: ReturnType<typeof licenseFileBody>;
  try {
    asked = licenseFileBody({ request });
  } catch (error) {
    if (error instanceof ClientError) throw invalidInput(notThisLicense);
    throw error;
  }
  const fields = asked.body as { app_id: string; license: string; hwid: string; lifetime_seconds?: number | null; encrypt?: boolean | null };
  if (asked.activation === undefined || fields.app_id !== appId || fields.license !== licenseKey) throw invalidInput(notThisLicense);
  return { fields, nonce: asked.activation.nonce };
}

/**
 * `POST /portal/license-file` (docs/portal.md): the activation request an offline computer made,
 * turned into its license file by /license-file's own action on the customer's behalf: every
 * check and effect of /auth, its 403 codes, the file recorded on the license, written as the customer.
 */
export async function customerLicenseFile(deps: Deps, input: { license_key: string; request: string }, request: RequestInfo) {
  const { session, asCustomer } = await ownLicense(deps, request, input.license_key, (portal) => portal.allow_license_files);
  const { fields, nonce } = activationFor(input.request, session.app_id, input.license_key);
  const asked = { appId: session.app_id, credential: { license: input.license_key }, hwid: fields.hwid, offlineToken: false };
  const file = { lifetimeSeconds: fields.lifetime_seconds ?? undefined, encrypt: fields.encrypt === true, airGapped: true, nonce };
  const { data } = await asClientAction(() => checkOutLicenseFile(asCustomer, asked, [], file));
  return data;
}
