import * as z from 'zod';
import { isUuid } from './ids';

/**
 * Body fields shared by management routes. Identifiers are checked for shape
 * only; whether they exist and belong to the caller is ownership's job.
 */
export const appIdField = z.string().refine(isUuid, 'must be a UUID');

export const subscriptionIdField = z.string().refine(isUuid, 'must be a UUID');

/** Generated keys are 29 characters; custom keys are bounded so a key always fits a DynamoDB key attribute. */
export const licenseKeyField = z.string().min(1).max(256);

/** 1..1000 keys (api-decisions.md); a key sent twice is answered once. */
export const licenseKeysField = z
  .array(licenseKeyField)
  .min(1)
  .max(1000)
  .transform((licenseKeys) => [...new Set(licenseKeys)]);
