import type { Deps } from '#core/deps';
import { notFound } from '#core/domain/ownership';
import { licenseRecord } from '#core/domain/license-view';
import type { OwnerInput } from '#core/http/handler';
import type { updateMetadataSchema } from './schemas';
import * as licenses from '#data/license.repo';

/** Replaces the whole object: owners send what they want stored, no merge rules to learn. */
export async function updateMetadata(deps: Deps, input: OwnerInput<typeof updateMetadataSchema>) {
  const license = await licenses.updateFields(deps.table, input.license_key, input.teamId, { metadata: input.metadata }, {}, deps.appScope);
  if (!license) throw notFound.license();
  return licenseRecord(deps, license);
}
