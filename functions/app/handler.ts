import { lambdaDepsFromEnv } from '#core/deps';
import { createGroupHandler, managementEndpoint, managementListEndpoint, type DepsSource, type Endpoints } from '#core/http';
import { listAudit } from './audit';
import { listApps } from './list';
import * as schemas from './schemas';
import { appStats } from './stats';

export const endpoints: Endpoints<'app'> = {
  '/app/list': managementEndpoint(schemas.listAppsSchema, listApps),
  '/app/stats': managementEndpoint(schemas.statsSchema, appStats),
  '/audit/get-bulk': managementListEndpoint(schemas.auditListSchema, listAudit),
};

export const createHandler = (deps: DepsSource) => createGroupHandler('app', endpoints, deps);

export const handler = createHandler(lambdaDepsFromEnv);
