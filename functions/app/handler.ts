import { callingKeyEndpoint, createGroupHandler, managementEndpoint, managementListEndpoint, type DepsSource, type Endpoints } from '#core/http/handler';
import { signingDepsFromEnv } from '#core/signing/signing-deps';
import { createApiKeyRoute, currentApiKey, listApiKeys, revokeApiKeyRoute } from './api-keys';
import { listAudit } from './audit';
import { listApps } from './list';
import { createApp, rotateSigningKey, updateApp } from './manage';
import * as schemas from './schemas';
import { appSettings } from './settings';
import { getSigningKey } from './signing-key';
import { appStats } from './stats';

export const endpoints: Endpoints<'app'> = {
  '/app/list': managementEndpoint(schemas.listAppsSchema, listApps),
  '/app/settings': managementEndpoint(schemas.settingsSchema, appSettings),
  '/app/signing-key': managementEndpoint(schemas.appIdSchema, getSigningKey),
  '/app/stats': managementEndpoint(schemas.statsSchema, appStats),
  '/app/create': managementEndpoint(schemas.createAppSchema, createApp),
  '/app/update': managementEndpoint(schemas.updateAppSchema, updateApp),
  '/app/rotate-signing-key': managementEndpoint(schemas.appIdSchema, rotateSigningKey),
  '/audit/get-bulk': managementListEndpoint(schemas.auditListSchema, listAudit),
  '/apikey/create': callingKeyEndpoint(schemas.createApiKeySchema, createApiKeyRoute),
  '/apikey/list': managementEndpoint(schemas.listAppsSchema, listApiKeys),
  '/apikey/revoke': managementEndpoint(schemas.apiKeyIdSchema, revokeApiKeyRoute),
  '/apikey/current': callingKeyEndpoint(schemas.listAppsSchema, currentApiKey),
};

export const createHandler = (deps: DepsSource) => createGroupHandler('app', endpoints, deps);

export const handler = createHandler(signingDepsFromEnv);
