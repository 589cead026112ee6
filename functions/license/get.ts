import type * as z from 'zod/mini';
import type { Deps } from '#core/deps';
import { ownedLicense } from '#core/domain/ownership';
import { licenseRecord } from '#core/domain/license-view';
import type { licenseKeySchema } from './schemas';

export async function getLicense(deps: Deps, input: z.infer<typeof licenseKeySchema> & { teamId: string }) {
  return licenseRecord(deps, await ownedLicense(deps, input.teamId, input.license_key));
}
