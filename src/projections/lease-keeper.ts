/**
 * One worker per projection: a worker holds the lease of every projection it folds (the read
 * store's `acquireLease`), renews it while it runs, and fences each unit with it, so that a
 * worker that lost its lease (paused past its time to live, cut off from the store) has its
 * units refused instead of moving a checkpoint another worker owns. A second worker started for
 * the same projections waits, asking again every `retryMs`, and takes over within
 * `ttlMs + retryMs` of the first one dying.
 *
 * How long a lease can still be trusted is kept on this process's monotonic clock, never by
 * comparing the lease's `expiresAt` (the store's clock: MongoDB's server time) with this
 * host's wall clock, which may differ by any amount. A lease asked for at local time t expires
 * on the store no earlier than t + ttl (the store starts its time to live after it received the
 * request), so t + ttl is a deadline that errs on the safe side, whatever either clock says.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { LeaseLost, type Lease, type ReadStore, type Unit } from '../stores/read-store.js';

export interface LeaseOptions {
  /** Who holds it (default: host, process and a random part, unique to this keeper). */
  holder?: string;
  /** How long a lease lasts without renewal (default 15 s); renewed every third of it. */
  ttlMs?: number;
  /** How often a waiting worker asks again (default a quarter of ttlMs). */
  retryMs?: number;
  /** Told once when the leases are held by another worker and this one waits. */
  onWaiting?(projections: readonly string[]): void;
  /** A monotonic clock in milliseconds (default performance.now; tests pass their own). */
  now?(): number;
}

export const defaultLeaseMs = 15_000;

export class LeaseKeeper {
  readonly holder: string;
  private readonly ttlMs: number;
  private readonly retryMs: number;
  private held: Lease[] = [];
  /** Each lease held, by projection: until when (on `now`) it may be trusted without a renewal. */
  private readonly trustedUntil = new Map<string, number>();
  private readonly now: () => number;
  private renewer: NodeJS.Timeout | undefined;
  private stopped = false;
  private wake: (() => void) | undefined;
  private lostListeners: ((error: Error) => void)[] = [];

  constructor(
    private readonly reads: ReadStore,
    readonly projections: readonly string[],
    private readonly options: LeaseOptions = {},
  ) {
    this.holder = options.holder ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.ttlMs = options.ttlMs ?? defaultLeaseMs;
    this.retryMs = options.retryMs ?? Math.max(5, Math.floor(this.ttlMs / 4));
    this.now = options.now ?? (() => performance.now());
  }

  get leases(): readonly Lease[] {
    return this.held;
  }

  /**
   * Resolves once every projection's lease is this worker's (all or none: a partial hold is let
   * go, so two workers asking for overlapping sets never wait on each other), false when
   * `stop()` came first.
   */
  async take(): Promise<boolean> {
    const names = [...this.projections].sort();
    let told = false;
    while (!this.stopped) {
      const got: Lease[] = [];
      for (const name of names) {
        const asked = this.now();
        const lease = await this.reads.acquireLease(name, this.holder, this.ttlMs);
        if (!lease) break;
        got.push(lease);
        this.trustedUntil.set(name, asked + this.ttlMs);
      }
      if (got.length === names.length) {
        this.held = got;
        this.renewer = setInterval(() => void this.renew(), Math.max(5, Math.floor(this.ttlMs / 3)));
        this.renewer.unref();
        return true;
      }
      for (const lease of got) await this.reads.releaseLease(lease);
      if (!told) {
        told = true;
        this.options.onWaiting?.(names);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.retryMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
    return false;
  }

  /** Fences a unit with every lease held. */
  fence(unit: Unit): void {
    for (const lease of this.held) unit.fence(lease);
  }

  /** Called once if a lease is lost (taken over, or not renewed before it expired). */
  onLost(listener: (error: Error) => void): void {
    this.lostListeners.push(listener);
  }

  private renewing = false;
  private async renew(): Promise<void> {
    if (this.renewing || this.stopped || !this.held.length) return;
    this.renewing = true;
    try {
      const next: Lease[] = [];
      for (const lease of this.held) {
        let renewed: Lease | undefined;
        const asked = this.now();
        try {
          renewed = await this.reads.renewLease(lease, this.ttlMs);
        } catch (error) {
          // The store did not answer: the lease stands until it expires (on this process's clock,
          // from when it was last asked for); then it is not ours to trust.
          if (this.now() < (this.trustedUntil.get(lease.projection) ?? Number.NEGATIVE_INFINITY)) {
            next.push(lease);
            continue;
          }
          return this.lost(error instanceof Error ? error : new Error(String(error)));
        }
        if (!renewed) return this.lost(new LeaseLost(lease.projection, lease.token));
        this.trustedUntil.set(lease.projection, asked + this.ttlMs);
        next.push(renewed);
      }
      if (!this.stopped) this.held = next;
    } finally {
      this.renewing = false;
    }
  }

  /** Until when (on the keeper's monotonic clock) the lease of `projection` may be trusted; undefined when not held. */
  trustedUntilOf(projection: string): number | undefined {
    return this.held.some((l) => l.projection === projection) ? this.trustedUntil.get(projection) : undefined;
  }

  private lost(error: Error): void {
    clearInterval(this.renewer);
    this.held = [];
    this.trustedUntil.clear();
    for (const listener of this.lostListeners.splice(0)) listener(error);
  }

  /** Stops waiting and renewing and lets the leases go, so another worker takes over at once. */
  async release(): Promise<void> {
    this.abandon();
    const held = this.held;
    this.held = [];
    for (const lease of held) await this.reads.releaseLease(lease).catch(() => undefined);
  }

  /** Stops waiting and renewing, leaving the leases to expire (what a killed process does). */
  abandon(): void {
    this.stopped = true;
    clearInterval(this.renewer);
    this.wake?.();
  }
}
