/**
 * Maps keyed by what a client or an owner chose (HWIDs, counter names, Stripe
 * price ids) are plain objects, and a plain `map[key]` also finds what every
 * object inherits: `constructor`, `toString`, `__proto__`. Their entries are
 * read here, so such a name is one more key, found only when it was stored.
 */
export function ownEntry<T>(map: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return map !== undefined && Object.hasOwn(map, key) ? map[key] : undefined;
}

/** Whether `key` is one of the map's own entries (not something every object inherits). */
export function hasOwnEntry(map: Readonly<Record<string, unknown>> | undefined, key: string): boolean {
  return map !== undefined && Object.hasOwn(map, key);
}
