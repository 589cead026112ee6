import { createGroupHandler, managementEndpoint, type DepsSource, type Endpoints } from '#core/http';
import { signingDepsFromEnv } from '#core/signing-deps';
import { appIdSchema, settingsSchema } from './schemas';
import { appSettings } from './settings';
import { getSigningKey } from './signing-key';

export const endpoints: Endpoints<'app'> = {
  '/app/settings': managementEndpoint(settingsSchema, appSettings),
  '/app/signing-key': managementEndpoint(appIdSchema, getSigningKey),
};

export const createHandler = (deps: DepsSource) => createGroupHandler('app', endpoints, deps);

export const handler = createHandler(signingDepsFromEnv);
