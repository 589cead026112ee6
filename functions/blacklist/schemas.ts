import * as z from 'zod';
import { appIdField } from '#core/fields';
import { blacklistTypes } from '#data/blacklist.repo';

const type = z.enum(blacklistTypes);
/** Bounded before normalisation; the per-type format is checked by `normalizeBlacklistValue`. */
const value = z.string().min(1).max(256);

export const addBlacklistSchema = z.object({
  app_id: appIdField,
  type,
  value,
  reason: z.string().max(500).optional(),
});
export type AddBlacklistInput = z.infer<typeof addBlacklistSchema>;

export const deleteBlacklistSchema = z.object({ app_id: appIdField, type, value });
export type DeleteBlacklistInput = z.infer<typeof deleteBlacklistSchema>;

export const listBlacklistSchema = z.object({
  app_id: appIdField,
  type: type.optional(),
  cursor: z.string().min(1).max(2048).optional(),
  per_page: z.number().int().min(1).max(100).default(25),
});
export type ListBlacklistInput = z.infer<typeof listBlacklistSchema>;
