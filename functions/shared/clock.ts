/** Time is a dependency so tests can move it; the service never calls Date.now() directly. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function iso(date: Date): string {
  return date.toISOString();
}

/** The latest time the service stores: the last instant of a four-digit year. JavaScript's Date ends in year 275760. */
export const latestTime = '9999-12-31T23:59:59.999Z';
export const latestTimeMs = Date.parse(latestTime);

/** Never past `latestTime`, so an expiry computed from whatever was stored is always a valid date. */
export function addSeconds(isoTime: string, seconds: number): string {
  return new Date(Math.min(Date.parse(isoTime) + seconds * 1000, latestTimeMs)).toISOString();
}
