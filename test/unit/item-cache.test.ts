import { createItemCache, requestItemCache } from '#data/item-cache';
import { keys } from '#data/keys';
import { createFakeClock } from '../support/clock';

describe('the item cache', () => {
  it('serves an item until its TTL has passed', () => {
    const clock = createFakeClock();
    const cache = createItemCache(5, clock);
    cache.set(keys.app('a'), { app_id: 'a' });
    clock.advance(4.999);
    expect(cache.get(keys.app('a'))).toEqual({ app_id: 'a' });
    clock.advance(0.001);
    expect(cache.get(keys.app('a'))).toBeUndefined();
  });

  it('keeps items of different keys apart', () => {
    const cache = createItemCache(5, createFakeClock());
    cache.set(keys.app('a'), { app_id: 'a' });
    expect(cache.get(keys.team('a'))).toBeUndefined();
  });

  it('holds nothing with a TTL of 0', () => {
    const cache = createItemCache(0, createFakeClock());
    cache.set(keys.app('a'), { app_id: 'a' });
    expect(cache.get(keys.app('a'))).toBeUndefined();
  });

  it('remembers a missing item for one request only, never across requests', () => {
    const shared = createItemCache(5, createFakeClock());
    const request = requestItemCache(shared);
    request.setAbsent(keys.app('a'));
    expect(request.isAbsent(keys.app('a'))).toBe(true);
    expect(request.isAbsent(keys.team('a'))).toBe(false);
    // The application may be made a moment later: the next request, and the warm Lambda's cache, must read it again.
    expect(shared.isAbsent(keys.app('a'))).toBe(false);
    expect(requestItemCache(shared).isAbsent(keys.app('a'))).toBe(false);
    request.set(keys.app('a'), { app_id: 'a' });
    expect(request.isAbsent(keys.app('a'))).toBe(false);
  });
});
