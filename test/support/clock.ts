import type { Clock } from '#shared/clock';

/** A clock tests move by hand, so expiry and cooldowns need no sleeping. */
export interface FakeClock extends Clock {
  advance(seconds: number): void;
  set(time: Date): void;
}

export function createFakeClock(start: Date = new Date()): FakeClock {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance: (seconds) => {
      current += seconds * 1000;
    },
    set: (time) => {
      current = time.getTime();
    },
  };
}
