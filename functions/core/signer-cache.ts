import type { KeyObject } from 'node:crypto';

/**
 * An application's private key, decrypted, to sign with. Kept apart from
 * signing-keys.ts so that deps.ts, which every function imports, does not pull
 * jose into the bundles that never sign.
 */
export interface Signer {
  appId: string;
  keyId: string;
  privateKey: KeyObject;
}

/** Per container: each application's key decrypted at most once (again only after a rotation). */
export type SignerCache = Map<string, Promise<Signer>>;

export const createSignerCache = (): SignerCache => new Map();
