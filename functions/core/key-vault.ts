import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where applications' private signing keys are encrypted at rest
 * (docs/client-api.md, "Signed answers and offline tokens"): the application's id is bound to each ciphertext,
 * so a ciphertext copied onto another application's item does not decrypt.
 */
export interface KeyVault {
  encrypt(appId: string, plaintext: Uint8Array): Promise<string>;
  decrypt(appId: string, ciphertext: string): Promise<Uint8Array>;
}

const ivBytes = 12;
const tagBytes = 16;

/** Locally: AES-256-GCM under a 32-byte master key, the app id as associated data; stored as base64 of iv, tag, ciphertext. */
export function localKeyVault(masterKey: Uint8Array): KeyVault {
  if (masterKey.length !== 32) throw new Error('the local master key must be 32 bytes');
  return {
    async encrypt(appId, plaintext) {
      const iv = randomBytes(ivBytes);
      const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
      cipher.setAAD(Buffer.from(appId, 'utf8'));
      const sealed = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
    },
    async decrypt(appId, ciphertext) {
      const bytes = Buffer.from(ciphertext, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', masterKey, bytes.subarray(0, ivBytes));
      decipher.setAAD(Buffer.from(appId, 'utf8'));
      decipher.setAuthTag(bytes.subarray(ivBytes, ivBytes + tagBytes));
      return Buffer.concat([decipher.update(bytes.subarray(ivBytes + tagBytes)), decipher.final()]);
    },
  };
}

export const masterKeyFileName = 'master.key';

/** The local master key in `dataDir`, created on first start with mode 0600. */
export function loadMasterKey(dataDir: string): Uint8Array {
  const file = join(dataDir, masterKeyFileName);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    // `wx`: of two processes starting together, the second reads the first one's key.
    try {
      writeFileSync(file, randomBytes(32), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  chmodSync(file, 0o600);
  const key = readFileSync(file);
  if (key.length !== 32) throw new Error(`${file} must hold exactly 32 bytes`);
  return key;
}
