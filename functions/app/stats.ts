import type { Deps } from '#core/deps';
import { ownedApp } from '#core/domain/ownership';
import type { OwnerInput } from '#core/http/handler';
import type { statsSchema } from './schemas';
import * as events from '#data/events.repo';

const dayMs = 86400_000;

/**
 * `/app/stats`: the totals the events consumer keeps (a few reads, whatever
 * the number of licenses), and the daily counters the events consumer and
 * the client function's failure count keep, every UTC day of the window
 * present, oldest first, today last.
 */
export async function appStats(deps: Deps, input: OwnerInput<typeof statsSchema>) {
  await ownedApp(deps, input.teamId, input.app_id);
  const now = deps.clock.now();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const window = Array.from({ length: input.days }, (_, index) => new Date(today - (input.days - 1 - index) * dayMs).toISOString().slice(0, 10));
  const [totals, counted] = await Promise.all([
    events.licenseTotals(deps.table, input.app_id, now),
    events.days(deps.table, input.app_id, window[0]!, window.at(-1)!),
  ]);
  return {
    totals,
    days: window.map((date) => {
      const day = counted.get(date);
      return { date, created: day?.created ?? 0, activated: day?.activated ?? 0, logins: day?.logins ?? 0, auth_failures: day?.auth_failures ?? 0 };
    }),
  };
}
