import { lambdaDepsFromEnv } from '#core/deps';
import { createGroupHandler, managementEndpoint, type DepsSource, type Endpoints } from '#core/http';
import { listApps } from './list';
import { listAppsSchema } from './schemas';

export const endpoints: Endpoints<'app'> = {
  '/app/list': managementEndpoint(listAppsSchema, listApps),
};

export const createHandler = (deps: DepsSource) => createGroupHandler('app', endpoints, deps);

export const handler = createHandler(lambdaDepsFromEnv);
