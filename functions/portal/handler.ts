import { createGroupHandler, publicEndpoint, type DepsSource, type Endpoints } from '#core/http/handler';
import { lambdaDepsFromEnv } from '#core/deps';
import * as schemas from './schemas';
import { portalApp } from './portal-app';
import { signIn, verify } from './sign-in';
import { signOut } from './session';
import { customerLicenses } from './licenses';
import { releaseDevice } from './release-device';
import { customerLicenseFile } from './license-file';
import { customerBilling } from './billing';

/** The customer portal's routes (docs/portal.md): no API key; a code, then a session's token, says who calls. */
export const endpoints: Endpoints<'portal'> = {
  '/portal/app': publicEndpoint(schemas.appSchema, portalApp),
  '/portal/sign-in': publicEndpoint(schemas.signInSchema, signIn, 202),
  '/portal/verify': publicEndpoint(schemas.verifySchema, verify),
  '/portal/sign-out': publicEndpoint(schemas.sessionOnlySchema, signOut),
  '/portal/licenses': publicEndpoint(schemas.sessionOnlySchema, customerLicenses),
  '/portal/release-device': publicEndpoint(schemas.releaseDeviceSchema, releaseDevice),
  '/portal/license-file': publicEndpoint(schemas.licenseFileSchema, customerLicenseFile),
  '/portal/billing': publicEndpoint(schemas.billingSchema, customerBilling),
};

export const createHandler = (deps: DepsSource) => createGroupHandler('portal', endpoints, deps);

export const handler = createHandler(lambdaDepsFromEnv);
