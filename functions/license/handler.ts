import { lambdaDepsFromEnv } from '#core/deps';
import { createGroupHandler, managementEndpoint, managementListEndpoint, type DepsSource, type Endpoints } from '#core/http/handler';
import { createLicense } from './create';
import { createLicensesInBulk } from './create-bulk';
import { deleteLicense } from './delete';
import { deleteInBulk } from './delete-bulk';
import { extendLicense } from './extend';
import { resetUsage, updateFeatures, updateUsageLimits } from './entitlements';
import { extendInBulk } from './extend-bulk';
import { findLicenses } from './find';
import { getLicense } from './get';
import { listLicenses } from './get-bulk';
import * as schemas from './schemas';
import { updateEmail } from './update-email';
import { updateMetadata } from './update-metadata';
import { updateStatus } from './update-status';
import { updateStatusInBulk } from './update-status-bulk';
import { updateSubscription } from './update-subscription';
import { updateUserCredentials } from './update-user-credentials';

export const endpoints: Endpoints<'license'> = {
  '/license/create': managementEndpoint(schemas.createSchema, createLicense),
  '/license/create-bulk': managementEndpoint(schemas.createBulkSchema, createLicensesInBulk),
  '/license/extend': managementEndpoint(schemas.extendSchema, extendLicense),
  '/license/extend-bulk': managementEndpoint(schemas.extendBulkSchema, extendInBulk),
  '/license/delete': managementEndpoint(schemas.licenseKeySchema, deleteLicense),
  '/license/delete-bulk': managementEndpoint(schemas.licenseKeysSchema, deleteInBulk),
  '/license/get': managementEndpoint(schemas.licenseKeySchema, getLicense),
  '/license/get-bulk': managementListEndpoint(schemas.getBulkSchema, listLicenses),
  '/license/find': managementEndpoint(schemas.findSchema, findLicenses),
  '/license/update-status': managementEndpoint(schemas.updateStatusSchema, updateStatus),
  '/license/update-status-bulk': managementEndpoint(schemas.updateStatusBulkSchema, updateStatusInBulk),
  '/license/update-subscription': managementEndpoint(schemas.updateSubscriptionSchema, updateSubscription),
  '/license/update-user-credentials': managementEndpoint(schemas.updateCredentialsSchema, updateUserCredentials),
  '/license/update-metadata': managementEndpoint(schemas.updateMetadataSchema, updateMetadata),
  '/license/update-features': managementEndpoint(schemas.updateFeaturesSchema, updateFeatures),
  '/license/update-usage-limits': managementEndpoint(schemas.updateUsageLimitsSchema, updateUsageLimits),
  '/license/reset-usage': managementEndpoint(schemas.resetUsageSchema, resetUsage),
  '/license/update-email': managementEndpoint(schemas.updateEmailSchema, updateEmail),
};

export const createHandler = (deps: DepsSource) => createGroupHandler('license', endpoints, deps);

export const handler = createHandler(lambdaDepsFromEnv);
