import { DecryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { referenceHandler } from './reference-stack';

/**
 * The second yardstick (`bundles_reference_kms`): the reference handler plus a
 * KMS client that sends one Decrypt, as a signing function's first signed
 * answer does. Bundles that carry the KMS client are judged against this one.
 */
let kms: KMSClient | undefined;

export const handler = referenceHandler(async (config) => {
  kms ??= new KMSClient({ region: config.region, endpoint: config.kmsEndpoint });
  return kms.send(new DecryptCommand({ KeyId: config.signingKmsKeyId, CiphertextBlob: Buffer.alloc(48, 1), EncryptionContext: { app_id: 'reference' } }));
});
