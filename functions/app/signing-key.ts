import type { Deps } from '#core/deps';
import type { OwnerInput } from '#core/http/handler';
import { ownedApp } from '#core/domain/ownership';
import { currentSigningKey, publicSigningKey, type PublicSigningKey } from '#core/signing/signing-keys';
import type { appIdSchema } from './schemas';

/** `POST /app/signing-key`: the public half of the application's current key, made now for an application that has none. */
export async function getSigningKey(deps: Deps, input: OwnerInput<typeof appIdSchema>): Promise<PublicSigningKey> {
  const app = await ownedApp(deps, input.teamId, input.app_id);
  return publicSigningKey(await currentSigningKey(deps, app));
}
