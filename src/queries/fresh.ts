/**
 * Read-your-writes: a caller's read that follows its own turn shows that turn. The front keeps,
 * per principal, the `$all` position its latest turn's answer depended on; a read by that
 * principal first waits (bounded) until the projection it reads has folded that position. The
 * projector may run in this process (its checkpoint is in memory) or in a worker (the front
 * polls the checkpoint the worker commits with its data).
 *
 * When the wait times out (a projector far behind or stopped), the read is answered from the
 * read model as it stands; the receipt the turn answered with stays the authority.
 */
import type { ReadStore } from '../stores/read-store.js';
import type { ProjectionName } from '../projections/index.js';
import { waitForCheckpoint, type ProjectorHandle } from '../projections/projector.js';

export interface CheckpointWaits {
  /** Resolves true once `projection` has folded `position`, false after `timeoutMs`. */
  wait(projection: ProjectionName, position: bigint, timeoutMs: number): Promise<boolean>;
  /** Resolves when any read model moves, or after `timeoutMs`. */
  changed(timeoutMs: number): Promise<void>;
  /**
   * The position `projection` has folded and committed as this process knows it, when its
   * projector runs here (what kept reads are kept under: kept-cards.ts); absent otherwise.
   */
  folded?(projection: ProjectionName): bigint | undefined;
}

/** Projectors running in this process. */
export function inProcessWaits(projectors: ProjectorHandle[]): CheckpointWaits {
  const of = (name: string) => projectors.find((p) => p.names.includes(name));
  return {
    wait: (projection, position, timeoutMs) => of(projection)?.waitFor(position, timeoutMs) ?? Promise.resolve(false),
    // The projector's own checkpoint (every unit it commits moves it), not the projection's alone.
    folded: (projection) => of(projection)?.checkpoint,
    changed: (timeoutMs) =>
      new Promise<void>((resolve) => {
        const offs: (() => void)[] = [];
        const done = () => {
          clearTimeout(timer);
          for (const off of offs) off();
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        for (const p of projectors) offs.push(p.onAdvance(done));
      }),
  };
}

/** Projectors running as workers: their checkpoints are read from the read store. */
export function workerWaits(reads: ReadStore): CheckpointWaits {
  return {
    wait: (projection, position, timeoutMs) => waitForCheckpoint(reads, projection, position, timeoutMs),
    changed: (timeoutMs) => new Promise<void>((resolve) => setTimeout(resolve, Math.min(timeoutMs, 50))),
  };
}

/** Notes kept where every front of the box reads them (src/stores/embedded/shared-fronts.ts). */
export interface SharedNotes {
  get(principal: string): bigint | undefined;
  note(principal: string, position: bigint): void;
}

export class ReadYourWrites {
  private readonly last = new Map<string, bigint>();

  constructor(
    readonly waits: CheckpointWaits,
    private readonly timeoutMs = 2000,
    private readonly remembered = 100_000,
    /** With several fronts: a turn answered on one is waited for by a read on another. */
    private readonly shared?: SharedNotes,
  ) {}

  /** The answer to `principal`'s turn depended on everything up to `position`. */
  note(principal: string, position: bigint | undefined): void {
    if (position === undefined) return;
    this.shared?.note(principal, position);
    const had = this.last.get(principal);
    if (had !== undefined && had >= position) return;
    this.last.delete(principal);
    this.last.set(principal, position);
    // Oldest first in a Map: forget the callers who have not turned for longest.
    if (this.last.size > this.remembered) this.last.delete(this.last.keys().next().value!);
  }

  /**
   * Waits until `projection` shows `principal`'s latest turn (or the bound passes). `true` at
   * once, without a promise, when it shows it already (the usual read).
   */
  settle(principal: string, projection: ProjectionName): true | Promise<boolean> {
    const mine = this.last.get(principal);
    const theirs = this.shared?.get(principal);
    const position = theirs !== undefined && (mine === undefined || theirs > mine) ? theirs : mine;
    if (position === undefined) return true;
    const folded = this.waits.folded?.(projection);
    if (folded !== undefined && folded >= position) return true;
    return this.waits.wait(projection, position, this.timeoutMs);
  }
}
