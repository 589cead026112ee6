import * as z from 'zod/mini';

/** Strict: a field sent here was meant for another route, and silently ignoring it would hide the mistake. */
export const listAppsSchema = z.strictObject({});
export type ListAppsInput = z.infer<typeof listAppsSchema>;
