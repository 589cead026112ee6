import type { Deps } from '#core/deps';
import { notFound } from '#core/domain/ownership';
import { licenseRecord } from '#core/domain/license-view';
import type { OwnerInput } from '#core/http/handler';
import type { updateEmailSchema } from './schemas';
import * as licenses from '#data/license.repo';

/** Sets the customer's email of one license, or removes it with null; the events consumer moves its lookup entry. */
export async function updateEmail(deps: Deps, input: OwnerInput<typeof updateEmailSchema>) {
  const license = await licenses.updateEmail(deps.table, input.license_key, input.teamId, input.email, deps.appScope);
  if (!license) throw notFound.license();
  return licenseRecord(deps, license);
}
