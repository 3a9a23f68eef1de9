/**
 * What a projector tells the rest of the town about its progress, wherever it folds: the
 * checkpoint it has committed, listeners told of every advance, read-your-writes waits for a
 * position, and whether it has caught up with the journal it found at start.
 */
export class CheckpointWatch {
  /** The last position every projection has folded and committed. */
  position: bigint | undefined;
  private waiters: { position: bigint; resolve(ok: boolean): void }[] = [];
  private readonly listeners = new Set<(position: bigint) => void>();
  private caughtUp = false;
  private caughtUpWaiters: (() => void)[] = [];

  /** A unit committed up to `position`: listeners hear it, waits it satisfies end. */
  advance(position: bigint): void {
    this.position = position;
    for (const l of this.listeners) l(position);
    if (!this.waiters.length) return;
    const ready = this.waiters.filter((w) => w.position <= position);
    if (!ready.length) return;
    this.waiters = this.waiters.filter((w) => w.position > position);
    for (const waiter of ready) waiter.resolve(true);
  }

  /** Whether a read-your-writes wait is in progress (the checkpoint has not reached it yet). */
  get waiting(): boolean {
    return this.waiters.length > 0;
  }

  onAdvance(listener: (position: bigint) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Resolves true as soon as the checkpoint reaches `position`, false when `timeoutMs` passes
   * first, or at once when the projector has `failed` (nothing would come).
   */
  waitFor(position: bigint, timeoutMs: number, failed: boolean): Promise<boolean> {
    if (this.position !== undefined && this.position >= position) return Promise.resolve(true);
    if (failed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = {
        position,
        resolve: (ok: boolean) => {
          clearTimeout(timer);
          resolve(ok);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Every wait in progress ends, unsatisfied (the projector failed or stopped). */
  giveUp(): void {
    for (const waiter of this.waiters.splice(0)) waiter.resolve(false);
  }

  whenCaughtUp(): Promise<void> {
    if (this.caughtUp) return Promise.resolve();
    return new Promise((resolve) => this.caughtUpWaiters.push(resolve));
  }

  markCaughtUp(): void {
    this.caughtUp = true;
    for (const resolve of this.caughtUpWaiters.splice(0)) resolve();
  }
}
