import * as z from 'zod/mini';
import { appIdField, licenseKeyField } from '#core/fields';
import { eventTypes } from '../events/derive';

export const statsSchema = z.object({
  app_id: appIdField,
  days: z._default(z.int().check(z.minimum(1), z.maximum(90)), 30),
});

export const auditListSchema = z.object({
  app_id: appIdField,
  license_key: z.optional(licenseKeyField),
  type: z.optional(z.enum(eventTypes)),
  per_page: z._default(z.int().check(z.minimum(1), z.maximum(100)), 25),
  cursor: z.nullish(z.string().check(z.maxLength(512))),
});
