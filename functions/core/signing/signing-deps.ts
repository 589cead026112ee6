import { readConfig } from '../config';
import { createLambdaDeps, type Deps } from '../deps';
import type { KeyVault } from '../key-vault';

let signingDeps: Promise<Deps> | undefined;

/** The deps of the groups that sign answers or make keys (client, app): the Lambda deps with the KMS key vault. */
export function signingDepsFromEnv(): Promise<Deps> {
  signingDeps ??= (() => {
    const config = readConfig();
    if (!config.signingKmsKeyId) throw new Error('SIGNING_KMS_KEY_ID is not set');
    return createLambdaDeps(config, lazyKmsKeyVault(config.region, config.kmsEndpoint, config.signingKmsKeyId));
  })();
  return signingDeps;
}

/**
 * The KMS key vault, its client loaded and made on the container's first
 * signature, new key or sealed secret: most cold starts (a license-key /auth
 * whose application's key is not yet needed, any /app call but the signing
 * key's, any /webhook call but those that make or rotate a secret) never use
 * it, and the client is a module of its own in the bundle (docs/performance.md,
 * "Bundles and cold start").
 */
export function lazyKmsKeyVault(region: string, endpoint: string | undefined, keyId: string): KeyVault {
  let vault: Promise<KeyVault> | undefined;
  const load = () => (vault ??= import('./kms-vault').then(({ createKmsClient, kmsKeyVault }) => kmsKeyVault(createKmsClient(region, endpoint), keyId)));
  return {
    encrypt: async (appId, plaintext) => (await load()).encrypt(appId, plaintext),
    decrypt: async (appId, ciphertext) => (await load()).decrypt(appId, ciphertext),
  };
}
