import { lambdaDepsFromEnv } from '#core/deps';
import { createGroupHandler, type DepsSource, type Endpoints } from '#core/http';

export const endpoints: Endpoints<'subscription'> = {};

export const createHandler = (deps: DepsSource) => createGroupHandler('subscription', endpoints, deps);

export const handler = createHandler(lambdaDepsFromEnv);
