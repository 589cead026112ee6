/** Time is a dependency so tests can move it; the service never calls Date.now() directly. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function iso(date: Date): string {
  return date.toISOString();
}

export function addSeconds(isoTime: string, seconds: number): string {
  return new Date(Date.parse(isoTime) + seconds * 1000).toISOString();
}
