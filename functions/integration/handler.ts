import { createGroupHandler, managementEndpoint, type DepsSource, type Endpoints } from '#core/http/handler';
import { signingDepsFromEnv } from '#core/signing/signing-deps';
import * as schemas from './schemas';
import { deleteStripe, getStripe, setStripe, stripeLicenses } from './stripe-connection';
import { receiveStripeEvent } from './stripe-webhook';

export const endpoints: Endpoints<'integration'> = {
  '/integration/stripe/set': managementEndpoint(schemas.setSchema, setStripe),
  '/integration/stripe/get': managementEndpoint(schemas.appIdSchema, getStripe),
  '/integration/stripe/delete': managementEndpoint(schemas.appIdSchema, deleteStripe),
  '/integration/stripe/licenses': managementEndpoint(schemas.licensesSchema, stripeLicenses),
  '/stripe/webhook/{app_id}': receiveStripeEvent,
};

export const createHandler = (deps: DepsSource) => createGroupHandler('integration', endpoints, deps);

/** The key vault's deps: Stripe's secrets are encrypted as signing keys are. */
export const handler = createHandler(signingDepsFromEnv);
