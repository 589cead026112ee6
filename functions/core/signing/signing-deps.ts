import { readConfig } from '../config';
import { createLambdaDeps, type Deps } from '../deps';
import { createKmsClient, kmsKeyVault } from './kms-vault';

let signingDeps: Promise<Deps> | undefined;

/** The deps of the groups that sign answers or make keys (client, app): the Lambda deps with the KMS key vault. */
export function signingDepsFromEnv(): Promise<Deps> {
  signingDeps ??= (() => {
    const config = readConfig();
    if (!config.signingKmsKeyId) throw new Error('SIGNING_KMS_KEY_ID is not set');
    return createLambdaDeps(config, kmsKeyVault(createKmsClient(config.region, config.kmsEndpoint), config.signingKmsKeyId));
  })();
  return signingDeps;
}
