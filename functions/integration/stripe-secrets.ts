import type { Deps } from '#core/deps';
import type { KeyVault } from '#core/key-vault';

/**
 * An owner's Stripe secrets are kept as applications' private signing keys are
 * (docs/stripe.md#secrets): encrypted by the key vault (KMS on AWS, the local master
 * key locally) under the application's id, and decrypted only to be used.
 */
function vaultOf(deps: Pick<Deps, 'keyVault'>): KeyVault {
  if (!deps.keyVault) throw new Error('no key vault is configured for Stripe secrets');
  return deps.keyVault;
}

export function sealSecret(deps: Pick<Deps, 'keyVault'>, appId: string, secret: string): Promise<string> {
  return vaultOf(deps).encrypt(appId, Buffer.from(secret, 'utf8'));
}

export async function revealSecret(deps: Pick<Deps, 'keyVault'>, appId: string, ciphertext: string): Promise<string> {
  return Buffer.from(await vaultOf(deps).decrypt(appId, ciphertext)).toString('utf8');
}

/** All `/integration/stripe/get` shows of a secret: its kind and its last four characters, as Stripe's Dashboard does. */
export function secretHint(secret: string): string {
  return `${secret.slice(0, secret.indexOf('_') + 1)}…${secret.slice(-4)}`;
}
