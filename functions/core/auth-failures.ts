import type { Clock } from './clock';

export interface PendingFailures {
  appId: string;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  count: number;
}

/**
 * Failed /auth attempts of one container, per application and UTC day, kept
 * in memory and handed out for a flush at most once per interval: /auth
 * itself never writes them (its budget is one write per success). Only
 * failures of an existing application are counted (an unknown app id is no
 * app's failure), so memory grows with the apps seen, not with what callers send.
 */
export class AuthFailureCounter {
  private pending = new Map<string, PendingFailures>();
  private lastFlushMs: number;

  constructor(
    private readonly clock: Clock,
    readonly intervalMs = 60_000,
  ) {
    this.lastFlushMs = clock.now().getTime();
  }

  note(appId: string): void {
    const day = this.clock.now().toISOString().slice(0, 10);
    const id = `${appId}\n${day}`;
    const entry = this.pending.get(id) ?? { appId, day, count: 0 };
    entry.count += 1;
    this.pending.set(id, entry);
  }

  /** The counts to flush, taken out of memory, when the interval has passed since the last flush; otherwise none. */
  takeDue(): PendingFailures[] {
    const now = this.clock.now().getTime();
    if (this.pending.size === 0 || now - this.lastFlushMs < this.intervalMs) return [];
    this.lastFlushMs = now;
    return this.takeAll();
  }

  /** Every count, due or not (a drain in tests and benches; the flush of a failed write puts its counts back). */
  takeAll(): PendingFailures[] {
    const taken = [...this.pending.values()];
    this.pending.clear();
    return taken;
  }

  restore(entries: PendingFailures[]): void {
    for (const entry of entries) {
      const id = `${entry.appId}\n${entry.day}`;
      const current = this.pending.get(id);
      if (current) current.count += entry.count;
      else this.pending.set(id, { ...entry });
    }
  }
}
