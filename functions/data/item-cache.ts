import { itemId as id } from './batch-get';
import type { Table } from './db';
import type { ItemKey } from './keys';
import type { Clock } from '#shared/clock';

/**
 * A short-lived in-memory cache of table items (app, team, subscription) that a
 * warm Lambda keeps between requests, so a warm /auth skips their reads. Changes
 * to those items take effect within the TTL; items that must take effect at once
 * (licenses, blacklist entries) are never put here. A TTL of 0 turns it off.
 */
export interface ItemCache {
  get(key: ItemKey): Record<string, unknown> | undefined;
  set(key: ItemKey, item: Record<string, unknown>): void;
  /**
   * Notes that `key` was read and had no item. Only a request's cache keeps that, for the
   * request's life: the item may be made at any moment, so a warm Lambda must read again.
   */
  setAbsent(key: ItemKey): void;
  /** Whether this request read `key` and found no item. */
  isAbsent(key: ItemKey): boolean;
}

/** A table read through a cache: what the reads of the /auth hot path take (auth.repo.ts). */
export interface CachedTable {
  table: Table;
  cache: ItemCache;
}

/** A Lambda serves a handful of apps; the bound only keeps a misbehaving caller from growing the heap. */
const maxEntries = 10_000;

export function createItemCache(ttlSeconds: number, clock: Clock): ItemCache {
  const entries = new Map<string, { item: Record<string, unknown>; expiresAt: number }>();
  return {
    get(key) {
      if (ttlSeconds === 0) return undefined;
      const entry = entries.get(id(key));
      if (!entry) return undefined;
      if (clock.now().getTime() >= entry.expiresAt) {
        entries.delete(id(key));
        return undefined;
      }
      return entry.item;
    },
    set(key, item) {
      if (ttlSeconds === 0) return;
      entries.delete(id(key));
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(id(key), { item, expiresAt: clock.now().getTime() + ttlSeconds * 1000 });
    },
    setAbsent() {},
    isAbsent: () => false,
  };
}

/**
 * The cache one request reads through: besides the shared cache it keeps, for
 * the request's life and whatever the TTL, every cacheable item the request
 * read, and which of them it found missing, so a later look at one within the
 * request (its answer's signature) costs no read and sees what the request saw.
 */
export function requestItemCache(shared: ItemCache): ItemCache {
  const seen = new Map<string, Record<string, unknown>>();
  const absent = new Set<string>();
  return {
    get(key) {
      const item = seen.get(id(key)) ?? shared.get(key);
      if (item) seen.set(id(key), item);
      return item;
    },
    set(key, item) {
      absent.delete(id(key));
      seen.set(id(key), item);
      shared.set(key, item);
    },
    setAbsent(key) {
      absent.add(id(key));
    },
    isAbsent: (key) => absent.has(id(key)),
  };
}
