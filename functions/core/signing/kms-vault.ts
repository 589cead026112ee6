import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import type { KeyVault } from '../key-vault';

/**
 * On AWS: the stack's KMS key, with the encryption context `{app_id}` that the
 * functions' IAM conditions require. Only the client and app bundles import
 * this module, so only they carry the KMS client.
 */
export function kmsKeyVault(client: KMSClient, keyId: string): KeyVault {
  return {
    async encrypt(appId, plaintext) {
      const { CiphertextBlob } = await client.send(new EncryptCommand({ KeyId: keyId, Plaintext: plaintext, EncryptionContext: { app_id: appId } }));
      if (!CiphertextBlob) throw new Error('KMS Encrypt returned no ciphertext');
      return Buffer.from(CiphertextBlob).toString('base64');
    },
    async decrypt(appId, ciphertext) {
      const { Plaintext } = await client.send(
        new DecryptCommand({ KeyId: keyId, CiphertextBlob: Buffer.from(ciphertext, 'base64'), EncryptionContext: { app_id: appId } }),
      );
      if (!Plaintext) throw new Error('KMS Decrypt returned no plaintext');
      return Plaintext;
    },
  };
}

export function createKmsClient(region: string, endpoint?: string): KMSClient {
  return new KMSClient({ region, endpoint, maxAttempts: 3, requestHandler: { connectionTimeout: 1000, requestTimeout: 3000, throwOnRequestTimeout: true } });
}
