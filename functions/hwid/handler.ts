import { lambdaDepsFromEnv } from '#core/deps';
import { createGroupHandler, type DepsSource, type Endpoints } from '#core/http';

export const endpoints: Endpoints<'hwid'> = {};

export const createHandler = (deps: DepsSource) => createGroupHandler('hwid', endpoints, deps);

export const handler = createHandler(lambdaDepsFromEnv);
