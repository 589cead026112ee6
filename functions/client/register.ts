import type { Deps } from '#core/deps';
import { clientFailure } from '#core/http/errors';
import { hashPassword } from '#core/domain/passwords';
import { licenseOfApp } from './auth-checks';
import type { RegisterInput } from './schemas';
import * as auth from '#data/auth.repo';
import * as credentials from '#data/credentials.repo';

export const registeredMessage = 'License credentials updated successfully';

/**
 * `POST /register`: sets or replaces a license's username and password. The
 * credentials repository claims the username and releases the old one in one
 * transaction; a license changed between our read and that write (another
 * registration) is read again once.
 */
export async function registerCredentials(deps: Deps, input: RegisterInput): Promise<void> {
  const { app, license: found } = await auth.read(deps, { app: input.appId, license: { key: input.license, appId: input.appId } });
  if (!app) throw clientFailure('INVALID_APP_ID');
  let license = licenseOfApp(found, input.appId);
  const passwordHash = await hashPassword(input.password, deps.config.bcryptCost);
  let outcome = await credentials.set(deps.table, license, input.username, passwordHash);
  if (outcome === 'license_changed') {
    license = licenseOfApp(await auth.currentLicense(deps.table, license), input.appId);
    outcome = await credentials.set(deps.table, license, input.username, passwordHash);
  }
  if (outcome === 'username_taken') throw clientFailure('USERNAME_TAKEN');
  if (outcome === 'license_changed') throw clientFailure('LICENSE_NOT_FOUND');
}
