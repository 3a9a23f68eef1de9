/**
 * Waiting for a projection's checkpoint to reach a position (ReadStore.waitForCheckpoint), the
 * same on both adapters: read the checkpoint, and when it is short, wait for a notice of a
 * commit to that projection (what the adapter can hear: its own units, a change stream) or for
 * a backoff that grows from 5 ms to 100 ms, whichever comes first. A read that waits its whole
 * timeout asks about 25 times, not 400.
 */
const FIRST_MS = 5;
const MAX_MS = 100;

export class CheckpointNotices {
  private readonly waiting = new Map<string, Set<() => void>>();

  /** A unit committed a checkpoint of `projection`: its waiters look again at once. */
  notify(projection: string): void {
    const wakes = this.waiting.get(projection);
    if (!wakes) return;
    this.waiting.delete(projection);
    for (const wake of wakes) wake();
  }

  get waiters(): number {
    let n = 0;
    for (const set of this.waiting.values()) n += set.size;
    return n;
  }

  async wait(read: () => Promise<bigint | undefined>, projection: string, position: bigint, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    let delay = FIRST_MS;
    for (;;) {
      const checkpoint = await read();
      if (checkpoint !== undefined && checkpoint >= position) return true;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await this.notice(projection, Math.min(delay, left));
      delay = Math.min(delay * 2, MAX_MS);
    }
  }

  private notice(projection: string, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      let set = this.waiting.get(projection);
      if (!set) this.waiting.set(projection, (set = new Set()));
      const wake = () => {
        clearTimeout(timer);
        this.waiting.get(projection)?.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      set.add(wake);
    });
  }
}
