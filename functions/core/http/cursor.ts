import type * as z from 'zod/mini';
import { invalidInput } from './errors';

/**
 * Listing cursors: base64url JSON arrays whose first element is the app they
 * page through, so a cursor cannot be replayed against another app's listing.
 * Anything that is not such a cursor, for this app, is one 400.
 */
export function encodeCursor(appId: string, position: readonly unknown[]): string {
  return Buffer.from(JSON.stringify([appId, ...position]), 'utf8').toString('base64url');
}

export const notACursor = () => invalidInput('cursor: is not a cursor this API returned for this app');

/** The position after the app, as `schema` (over the whole array, app first) reads it. */
export function decodeCursor<S extends z.ZodMiniType<readonly [string, ...unknown[]]>>(cursor: string, appId: string, schema: S): z.infer<S> {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw notACursor();
  }
  const parsed = schema.safeParse(decoded);
  if (!parsed.success || parsed.data[0] !== appId) throw notACursor();
  return parsed.data;
}
