import type { Deps } from '#core/deps';
import { ManagementError } from '#core/http/errors';
import { managementView } from '#core/domain/license-view';
import { hashPassword } from '#core/domain/passwords';
import type { OwnerInput } from '#core/http/handler';
import { newLicense } from './new-license';
import type { createSchema } from './schemas';
import { appAndSubscription } from './subscription-of-app';
import * as licenses from '#data/license.repo';

type Input = OwnerInput<typeof createSchema>;

/** A generated key (125 random bits) colliding even once is practically impossible; three times means a fault. */
const generatedKeyAttempts = 3;

export const keyTaken = () => new ManagementError('LICENSE_KEY_TAKEN');
export const usernameTaken = () => new ManagementError('USERNAME_TAKEN');

/**
 * One license, with credentials when given: license and username index item
 * are written in one transaction, so a taken username leaves nothing behind.
 */
export async function createLicense(deps: Deps, input: Input) {
  const { subscription, resetRules } = await appAndSubscription(deps, input);
  // A custom key is stored under the team, where the write's condition finds
  // the team's other custom keys; the team's keys in the shared namespace
  // (generated ones, and custom ones made before keys were scoped) are looked
  // up here. Nothing new enters that namespace under a chosen key, so no
  // concurrent create can slip in between this read and the write.
  if (input.license_key !== undefined && (await licenses.get(deps.table, input.license_key, input.teamId))?.team_id === input.teamId) {
    throw keyTaken();
  }
  const passwordHash = input.password === undefined ? undefined : await hashPassword(input.password, deps.config.bcryptCost);
  for (let attempt = 0; attempt < generatedKeyAttempts; attempt++) {
    const license = newLicense(deps, { ...input, ...resetRules, subscription, key: input.license_key });
    const outcome =
      passwordHash === undefined
        ? (await licenses.create(deps.table, license)) ? 'created' : 'key_taken'
        : await licenses.createWithCredentials(deps.table, license, passwordHash);
    if (outcome === 'created') return managementView(license, subscription, deps.clock.now());
    if (outcome === 'username_taken') throw usernameTaken();
    if (input.license_key !== undefined) throw keyTaken();
  }
  throw new Error(`${generatedKeyAttempts} generated license keys in a row were taken`);
}
