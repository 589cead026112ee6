import { lambdaDepsFromEnv } from '#core/deps';
import { createGroupHandler, type DepsSource, type Endpoints } from '#core/http';

export const endpoints: Endpoints<'client'> = {};

export const createHandler = (deps: DepsSource) => createGroupHandler('client', endpoints, deps);

export const handler = createHandler(lambdaDepsFromEnv);
