import * as z from 'zod/mini';
import { appIdField } from '#core/domain/fields';
import { blacklistTypes } from '#data/model/blacklist';

const type = z.lazy(() => z.enum(blacklistTypes));
/** Bounded before normalisation; the per-type format is checked by `normalizeBlacklistValue`. */
const value = z.lazy(() => z.string().check(z.minLength(1), z.maxLength(256)));

export const addBlacklistSchema = z.lazy(() =>
  z.object({
    app_id: appIdField,
    type,
    value,
    reason: z.optional(z.string().check(z.maxLength(500))),
  }),
);

export const deleteBlacklistSchema = z.lazy(() => z.object({ app_id: appIdField, type, value }));

export const listBlacklistSchema = z.lazy(() =>
  z.object({
    app_id: appIdField,
    type: z.optional(type),
    cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
    per_page: z._default(z.int().check(z.minimum(1), z.maximum(100)), 25),
  }),
);
