import type { Clock } from '#shared/clock';
import type { Logger } from './logger';

export interface PendingFailures {
  appId: string;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  count: number;
}

/**
 * Failed /auth attempts of one container, per application and UTC day, kept
 * in memory and written by a timer at most once per interval, never by a
 * request: /auth's budget is one DynamoDB write per success and none per
 * failure. Only failures of an existing application are counted (an unknown
 * app id is no app's failure), so memory grows with the apps seen, not with
 * what callers send. On Lambda a timer due while the container is frozen runs
 * when it thaws; what a container holds when it is recycled is lost.
 */
export class AuthFailureCounter {
  private pending = new Map<string, PendingFailures>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly write: (entry: PendingFailures) => Promise<void>,
    private readonly logger: Logger,
    readonly intervalMs = 60_000,
  ) {}

  note(appId: string): void {
    const day = this.clock.now().toISOString().slice(0, 10);
    const id = `${appId}\n${day}`;
    const entry = this.pending.get(id) ?? { appId, day, count: 0 };
    entry.count += 1;
    this.pending.set(id, entry);
    // Unref'd: a pending flush never keeps a process (a test run, the local server's shutdown) alive.
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.intervalMs).unref();
  }

  /** Writes every count now (the timer's job; tests and benches drain with it). A write that fails keeps its count for the next flush. */
  async flush(): Promise<void> {
    const entries = [...this.pending.values()];
    this.pending.clear();
    for (const entry of entries) {
      try {
        await this.write(entry);
      } catch (error) {
        const id = `${entry.appId}\n${entry.day}`;
        const current = this.pending.get(id);
        if (current) current.count += entry.count;
        else this.pending.set(id, entry);
        this.logger.warn('failed /auth counts not written', { app_id: entry.appId, error_message: error instanceof Error ? error.message : String(error) });
      }
    }
  }
}
