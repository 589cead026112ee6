import { lambdaDepsFromEnv } from '#core/deps';
import { createGroupHandler, type DepsSource, type Endpoints } from '#core/http';

export const endpoints: Endpoints<'blacklist'> = {};

export const createHandler = (deps: DepsSource) => createGroupHandler('blacklist', endpoints, deps);

export const handler = createHandler(lambdaDepsFromEnv);
