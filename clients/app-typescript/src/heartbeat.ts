import { LicenseError } from './errors.js';
import type { Credentials, LicenseData } from './types.js';

export type HeartbeatOptions = Credentials & {
  /** The device holding the seat. */
  hwid: string;
  /** Called once when the seat is lost: the service refused a renewal (`SEATS_EXHAUSTED`, `LICENSE_EXPIRED`, …) or the lease ended unrenewed (`NETWORK_ERROR`). */
  onLost?: (error: LicenseError) => void;
};

/** What the heartbeat does with the seat, through the client. */
export interface Seat {
  renew(): Promise<LicenseData>;
  release(): Promise<void>;
  now(): number;
}

const shortestWaitMs = 1000;
const exitSignals = ['SIGINT', 'SIGTERM'] as const;

/**
 * The lease an answer gives: its end as the service wrote it, and its length
 * by the service's own clock (from this authentication to the end), which the
 * heartbeat measures out on the computer's clock: a computer whose clock is
 * off still renews in time.
 */
function leaseOf(data: LicenseData): { end: number; length: number } | undefined {
  if (typeof data.lease_expires_at !== 'string') return undefined;
  const end = Date.parse(data.lease_expires_at);
  return { end, length: end - Date.parse(data.last_login) };
}

const notFloating = () => new LicenseError('LICENSE_NOT_FLOATING', 'the answer holds no lease: the license is not floating');

/**
 * Keeps a floating seat: renews it (one `/auth`) at about half of what is left
 * of the lease, with jitter so that many programs started together spread out,
 * and gives it back on `stop()` and when the process ends cleanly (its event
 * loop runs empty, or SIGINT or SIGTERM arrives; after releasing, a signal
 * nobody else listens to ends the process as it would have). The timer does
 * not keep the process alive. A failed renewal is retried while the lease
 * lasts; a refusal, or a lease that ends unrenewed, is reported to `onLost`
 * once and ends the heartbeat.
 */
export class Heartbeat {
  /** The end of the lease as of the last renewal, in milliseconds since the epoch (the service's clock). */
  leaseExpiresAt: number;
  /** When the next renewal is due, in milliseconds since the epoch (the client's clock). */
  nextRenewalAt = 0;
  /** Why the seat was lost, once it was. */
  lost: LicenseError | undefined;
  private state: 'running' | 'lost' | 'stopped' = 'running';
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private renewedAt: number;
  private leaseMs: number;

  private constructor(
    private readonly seat: Seat,
    private readonly onLost: ((error: LicenseError) => void) | undefined,
    lease: { end: number; length: number },
  ) {
    this.leaseExpiresAt = lease.end;
    this.leaseMs = lease.length;
    this.renewedAt = seat.now();
  }

  static async start(seat: Seat, onLost?: (error: LicenseError) => void): Promise<Heartbeat> {
    const lease = leaseOf(await seat.renew());
    if (lease === undefined) throw notFloating();
    const heartbeat = new Heartbeat(seat, onLost, lease);
    heartbeat.schedule();
    process.once('beforeExit', heartbeat.onBeforeExit);
    for (const signal of exitSignals) process.once(signal, heartbeat.onSignal);
    return heartbeat;
  }

  /**
   * Renews now instead of at the time planned, e.g. when the computer wakes
   * from sleep (timers do not run while it sleeps; Electron's `powerMonitor`
   * tells of the resume). Resolves once the renewal is done; a loss goes to `onLost`.
   */
  async renewNow(): Promise<void> {
    await this.beating;
    if (this.state !== 'running') return;
    clearTimeout(this.timer);
    this.beating = this.beat();
    await this.beating;
  }

  /** Stops renewing and releases the seat (unless it was already lost); resolves once released. */
  stop(): Promise<void> {
    this.stopping ??= this.halt();
    return this.stopping;
  }

  private async halt(): Promise<void> {
    const holding = this.state === 'running';
    this.state = 'stopped';
    this.unhook();
    await this.beating;
    if (holding) await this.seat.release();
  }

  private schedule() {
    const left = this.leaseMs - (this.seat.now() - this.renewedAt);
    const delay = Math.max(shortestWaitMs, (left / 2) * (0.9 + Math.random() * 0.2));
    this.nextRenewalAt = this.seat.now() + delay;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.beating = this.beat();
    }, delay);
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    try {
      const lease = leaseOf(await this.seat.renew());
      if (this.state !== 'running') return;
      if (lease === undefined) return this.lose(notFloating());
      this.leaseExpiresAt = lease.end;
      this.leaseMs = lease.length;
      this.renewedAt = this.seat.now();
      this.schedule();
    } catch (error) {
      if (this.state !== 'running') return;
      const failure = error instanceof LicenseError ? error : new LicenseError('NETWORK_ERROR', 'the renewal failed', { cause: error });
      if (failure.code === 'NETWORK_ERROR' && this.seat.now() - this.renewedAt < this.leaseMs) return this.schedule();
      this.lose(failure);
    }
  }

  private lose(error: LicenseError) {
    this.state = 'lost';
    this.lost = error;
    this.unhook();
    this.onLost?.(error);
  }

  private unhook() {
    clearTimeout(this.timer);
    process.removeListener('beforeExit', this.onBeforeExit);
    for (const signal of exitSignals) process.removeListener(signal, this.onSignal);
  }

  private readonly onBeforeExit = () => {
    void this.stop().catch(() => undefined);
  };

  private readonly onSignal = (signal: NodeJS.Signals) => {
    void this.stop()
      .catch(() => undefined)
      .finally(() => {
        if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
      });
  };
}
