import { lambdaDepsFromEnv } from '#core/deps';
import { createGroupHandler, managementEndpoint, managementListEndpoint, type DepsSource, type Endpoints } from '#core/http/handler';
import { createSubscription } from './create';
import { deleteSubscription } from './delete';
import { editSubscription } from './edit';
import { listSubscriptions } from './get-bulk';
import { createSubscriptionSchema, deleteSubscriptionSchema, editSubscriptionSchema, listSubscriptionsSchema } from './schemas';

export const endpoints: Endpoints<'subscription'> = {
  '/subscription/create': managementEndpoint(createSubscriptionSchema, createSubscription),
  '/subscription/edit': managementEndpoint(editSubscriptionSchema, editSubscription),
  '/subscription/delete': managementEndpoint(deleteSubscriptionSchema, deleteSubscription),
  '/subscription/get-bulk': managementListEndpoint(listSubscriptionsSchema, listSubscriptions),
};

export const createHandler = (deps: DepsSource) => createGroupHandler('subscription', endpoints, deps);

export const handler = createHandler(lambdaDepsFromEnv);
