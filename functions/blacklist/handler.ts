import { lambdaDepsFromEnv } from '#core/deps';
import { createGroupHandler, managementEndpoint, managementListEndpoint, type DepsSource, type Endpoints } from '#core/http/handler';
import { addBlacklistEntry } from './add';
import { deleteBlacklistEntry } from './delete';
import { listBlacklist } from './get-bulk';
import { addBlacklistSchema, deleteBlacklistSchema, listBlacklistSchema } from './schemas';

export const endpoints: Endpoints<'blacklist'> = {
  '/blacklist/add': managementEndpoint(addBlacklistSchema, addBlacklistEntry),
  '/blacklist/delete': managementEndpoint(deleteBlacklistSchema, deleteBlacklistEntry),
  '/blacklist/get-bulk': managementListEndpoint(listBlacklistSchema, listBlacklist),
};

export const createHandler = (deps: DepsSource) => createGroupHandler('blacklist', endpoints, deps);

export const handler = createHandler(lambdaDepsFromEnv);
