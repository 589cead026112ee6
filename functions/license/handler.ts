import { lambdaDepsFromEnv } from '#core/deps';
import { createGroupHandler, type DepsSource, type Endpoints } from '#core/http';

export const endpoints: Endpoints<'license'> = {};

export const createHandler = (deps: DepsSource) => createGroupHandler('license', endpoints, deps);

export const handler = createHandler(lambdaDepsFromEnv);
