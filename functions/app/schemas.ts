import * as z from 'zod/mini';
import { appIdField } from '#core/fields';
import { offlineTokenTtl } from '../client/offline-token';

export const appIdSchema = z.object({ app_id: appIdField });

export const settingsSchema = z.object({
  app_id: appIdField,
  offline_token_ttl: z.optional(z.int().check(z.gte(offlineTokenTtl.minSeconds), z.lte(offlineTokenTtl.maxSeconds))),
});
