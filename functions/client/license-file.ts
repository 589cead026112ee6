import type { Deps } from '#core/deps';
import type { BlacklistProbe } from '#data/model/blacklist';
import { authenticate } from './auth';
import { encryptedFile } from './file-rules';
import { signedLicenseFile } from './offline-token';
import type { AuthInput, LicenseFileFields } from './schemas';

/**
 * `POST /license-file` (docs/client-api.md, "POST /license-file"): a check with all of /auth's
 * steps and effects whose one write also records the file, then the file signed (and encrypted
 * when asked) for the device. `nonce` is the one the file carries: the activation request's for
 * a file made from one.
 */
export async function checkOutLicenseFile(deps: Deps, input: AuthInput, probes: BlacklistProbe[], fields: LicenseFileFields & { airGapped: boolean; nonce: string | undefined }) {
  const success = await authenticate(deps, input, probes, undefined, { lifetimeSeconds: fields.lifetimeSeconds, airGapped: fields.airGapped });
  const file = success.file!;
  const jws = await signedLicenseFile(deps, {
    app: success.app,
    license: success.license,
    subscription: success.subscription,
    nonce: fields.nonce,
    hwid: file.hwid,
    data: success.data,
    airGapped: file.air_gapped,
    jti: file.jti,
    iat: Date.parse(file.issued_at) / 1000,
    exp: Date.parse(file.expires_at) / 1000,
  });
  const licenseFile = fields.encrypt ? await encryptedFile(jws, success.license.key, file.hwid) : jws;
  return { message: success.message, data: { ...success.data, license_file: licenseFile } };
}
