/**
 * The free-space watermark of the embedded stores (a flood stage, as Elasticsearch has one):
 * below `minFreeBytes` free on the data directory's file system, the journal refuses its next
 * group and the read store its next unit, before either writes a byte. LMDB cannot be trusted
 * to fail cleanly when a page write meets a full disk (it has aborted the process there), so
 * the town stops writing while the disk still has room for what is under way.
 *
 * The refusal is a storage fault (ENOSPC, src/contract/storage-fault.ts): the front answers 503
 * `hostUnavailable` with Retry-After, nothing is acknowledged, and a projector whose unit was
 * refused is started again after its wait. The refusal lifts by itself: every write looks again
 * (one `statfs`, about 2 µs), so the first one after space returns goes through. /ready says
 * not ready and /metrics shows `town_disk_low` while the disk is below the watermark
 * (docs/decisions/disk-watermark.md).
 */
import fs from 'node:fs';

/** TOWN_MIN_FREE_MB's default: 64 MiB, room for the groups and units under way and LMDB's growth. */
export const defaultMinFreeBytes = 64 * 1024 * 1024;

/** Free bytes on the file system holding `dir`, as an unprivileged writer may use them. */
export type FreeBytes = (dir: string) => number;

export const statfsFree: FreeBytes = (dir) => {
  const s = fs.statfsSync(dir);
  return s.bavail * s.bsize;
};

/** A write refused by the watermark: a storage fault by its code. */
export class DiskLow extends Error {
  readonly code = 'ENOSPC';
  constructor(
    readonly free: number,
    readonly minFree: number,
  ) {
    super(`ENOSPC: no space left on device for the town's writes: ${mb(free)} free, below the watermark of ${mb(minFree)} (TOWN_MIN_FREE_MB)`);
  }
}

const mb = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MiB`;

export class DiskGuard {
  private lastFree = Number.NaN;
  /** Writes refused since the process started. */
  refused = 0;

  constructor(
    readonly dir: string,
    readonly minFreeBytes = defaultMinFreeBytes,
    private readonly freeBytes: FreeBytes = statfsFree,
  ) {}

  /** Looks at the disk now: the free bytes (NaN when the file system does not answer). */
  look(): number {
    try {
      this.lastFree = this.freeBytes(this.dir);
    } catch {
      // A file system that cannot say is not taken for a full one: the write itself will tell.
      this.lastFree = Number.NaN;
    }
    return this.lastFree;
  }

  /** Free bytes at the last look. */
  get free(): number {
    return this.lastFree;
  }

  /** Whether the disk was below the watermark at the last look. */
  get low(): boolean {
    return this.lastFree < this.minFreeBytes;
  }

  /** Throws DiskLow when the disk is below the watermark now; called before each write. */
  check(): void {
    if (this.minFreeBytes <= 0) return;
    if (this.look() < this.minFreeBytes) {
      this.refused++;
      throw new DiskLow(this.lastFree, this.minFreeBytes);
    }
  }

  /** Why the disk makes this process unfit to take writes now, or undefined (a fresh look). */
  reason(): string | undefined {
    if (this.minFreeBytes <= 0) return undefined;
    return this.look() < this.minFreeBytes
      ? `the disk is below its free-space watermark: ${mb(this.lastFree)} free of the ${mb(this.minFreeBytes)} the town keeps (TOWN_MIN_FREE_MB); writes are refused until space returns`
      : undefined;
  }
}
