import type { Deps } from '#core/deps';
import { invalidInput } from '#core/http/errors';
import { ownedLicense } from '#core/domain/ownership';
import { hashPassword } from '#core/domain/passwords';
import type { License } from '#data/model/license';
import { usernameTaken } from './create';
import { licenseRecord } from '#core/domain/license-view';
import type { OwnerInput } from '#core/http/handler';
import { optimistic } from './optimistic';
import type { updateCredentialsSchema } from './schemas';
import * as credentials from '#data/credentials.repo';
import * as usernames from '#data/username.repo';

/** The stored hash when only the username changes; undefined when the index moved under us (read again). */
async function currentPasswordHash(deps: Deps, license: License): Promise<string | undefined> {
  if (license.username === null) throw invalidInput('password: required for a license without credentials');
  const index = await usernames.get(deps.table, license.app_id, license.username);
  return index?.license_key === license.key ? index.password_hash : undefined;
}

/**
 * Sets the username (and the password, when given) of a license. Usernames stay
 * unique per application through the credentials repository's transaction.
 */
export async function updateUserCredentials(deps: Deps, input: OwnerInput<typeof updateCredentialsSchema>) {
  const newHash = input.password === undefined ? undefined : await hashPassword(input.password, deps.config.bcryptCost);
  const updated = await optimistic(async () => {
    const license = await ownedLicense(deps, input.teamId, input.license_key);
    const passwordHash = newHash ?? (await currentPasswordHash(deps, license));
    if (passwordHash === undefined) return undefined;
    const outcome = await credentials.set(deps.table, license, input.username, passwordHash);
    if (outcome === 'username_taken') throw usernameTaken();
    return outcome === 'updated' ? { ...license, username: input.username } : undefined;
  });
  return licenseRecord(deps, updated);
}
