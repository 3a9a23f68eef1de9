/**
 * Generations of read models (ReadStore.at, ReadStore.switchGeneration): a live rebuild folds
 * a new generation beside the one reads are served from, then switches to it in one step.
 * A generation is a namespace of names as stored: generation 0 is the names as given (every
 * store made before generations existed is generation 0), generation n > 0 prefixes each
 * collection, checkpoint and version name with `g<n>.`. Names callers give may not start that
 * way themselves.
 *
 * The views are the same for both adapters: an adapter answers the operations on names as
 * stored (StoredNames) and keeps which generation is current; a view prefixes the names of
 * one generation. The store's own methods are its current generation's view, so what a request
 * pays for the switch is reading that one reference. `GenerationalReadStore` is that front, the
 * same for both adapters: each keeps only where it stores the current generation and its own
 * storage of names as stored.
 */
import type { Collection, Lease, ReadStore, Unit, UnitLimits } from './read-store.js';
import { UnitGate } from './read-store-unit.js';

const generationPattern = /^g(\d+)\./;

export function generationPrefix(generation: number): string {
  return generation === 0 ? '' : `g${generation}.`;
}

/** The generation a name as stored belongs to. */
export function generationOfName(stored: string): number {
  const match = generationPattern.exec(stored);
  return match ? Number(match[1]) : 0;
}

export function checkGeneration(generation: number): number {
  if (!Number.isSafeInteger(generation) || generation < 0) throw new TypeError('a generation is a non-negative integer');
  return generation;
}

/** A collection or projection name as a caller gives it: never one that names a generation. */
export function checkUnprefixed(name: string): string {
  if (typeof name === 'string' && generationPattern.test(name)) throw new TypeError(`names starting g<digits>. are kept for generations: ${name}`);
  return name;
}

/** What an adapter does on names as stored (generation prefix included), for the views. */
export interface StoredNames {
  storedCollection(name: string): Collection;
  storedUnit<T>(work: (unit: Unit) => Promise<T>): Promise<T>;
  storedCheckpoint(projection: string): Promise<bigint | undefined>;
  storedVersion(projection: string): Promise<number | undefined>;
  storedWaitForCheckpoint(projection: string, position: bigint, timeoutMs: number): Promise<boolean>;
  /** Drops what starts with `prefix` (as stored) and belongs to `generation`. */
  storedDrop(prefix: string, generation: number): Promise<void>;
  /** The store itself: what a view's at, switchGeneration and close ask. */
  readonly root: ReadStore;
  readonly unitLimits: UnitLimits | undefined;
}

/**
 * One generation of a store. Collections opened through it are kept (they hold nothing but
 * their name and store), so opening one again costs a map lookup.
 */
export class GenerationView implements ReadStore {
  private readonly prefix: string;
  private readonly opened = new Map<string, Collection>();

  constructor(
    private readonly store: StoredNames,
    readonly generation: number,
  ) {
    this.prefix = generationPrefix(checkGeneration(generation));
  }

  collection(name: string): Collection {
    let c = this.opened.get(name);
    if (c === undefined) {
      c = this.store.storedCollection(this.prefix + checkUnprefixed(name));
      this.opened.set(name, c);
    }
    return c;
  }

  get unitLimits(): UnitLimits | undefined {
    return this.store.unitLimits;
  }

  get changeStreamRestarts(): number {
    return this.store.root.changeStreamRestarts;
  }

  unit<T>(work: (unit: Unit) => Promise<T>): Promise<T> {
    const { prefix } = this;
    if (!prefix) return this.store.storedUnit(work);
    return this.store.storedUnit((unit) =>
      work({
        collection: (name) => unit.collection(prefix + checkUnprefixed(name)),
        setCheckpoint: (projection, position) => unit.setCheckpoint(prefix + checkUnprefixed(projection), position),
        setVersion: (projection, version) => unit.setVersion(prefix + checkUnprefixed(projection), version),
        // A lease is the projection's whatever the generation: one worker folds it.
        fence: (lease) => unit.fence(lease),
        onCommit: (fn) => unit.onCommit(fn),
      }),
    );
  }

  async checkpoint(projection: string): Promise<bigint | undefined> {
    return this.store.storedCheckpoint(this.prefix + checkUnprefixed(projection));
  }

  async version(projection: string): Promise<number | undefined> {
    return this.store.storedVersion(this.prefix + checkUnprefixed(projection));
  }

  waitForCheckpoint(projection: string, position: bigint, timeoutMs: number): Promise<boolean> {
    return this.store.storedWaitForCheckpoint(this.prefix + checkUnprefixed(projection), position, timeoutMs);
  }

  // Leases belong to projections, not to generations: a view asks the store itself.
  acquireLease(projection: string, holder: string, ttlMs: number): Promise<Lease | undefined> {
    return this.store.root.acquireLease(projection, holder, ttlMs);
  }

  renewLease(lease: Lease, ttlMs: number): Promise<Lease | undefined> {
    return this.store.root.renewLease(lease, ttlMs);
  }

  releaseLease(lease: Lease): Promise<void> {
    return this.store.root.releaseLease(lease);
  }

  async drop(prefix = ''): Promise<void> {
    return this.store.storedDrop(this.prefix + checkUnprefixed(prefix), this.generation);
  }

  at(generation: number): ReadStore {
    return this.store.root.at(generation);
  }

  /** Only the store switches: a view is one generation for good. */
  switchGeneration(): Promise<void> {
    return Promise.reject(new TypeError('a generation view cannot switch: switch the store it was opened from'));
  }

  /** A view closes nothing: the store it was opened from does. */
  async close(): Promise<void> {}
}

/**
 * A store's front over its generations: its own methods are the current generation's view,
 * `at` opens another, `switchGeneration` makes another current. An adapter supplies the
 * operations on names as stored, where it keeps the current generation, and the rest of
 * ReadStore (leases, close).
 */
export abstract class GenerationalReadStore implements ReadStore, StoredNames {
  /** Serialises units, single writes, index builds, drops and the switch (read-store-unit.ts). */
  protected readonly gate = new UnitGate();
  /** The current generation: what the store's own methods read and write. */
  private current: GenerationView;

  protected constructor(generation: number) {
    this.current = new GenerationView(this, generation);
  }

  /** Refuses work once the store is closed. */
  protected abstract assertOpen(): void;
  /** Keeps `generation` as the current one, durably, before the store serves it. */
  protected abstract keepGeneration(generation: number): Promise<void>;

  abstract storedCollection(name: string): Collection;
  abstract storedUnit<T>(work: (unit: Unit) => Promise<T>): Promise<T>;
  abstract storedCheckpoint(projection: string): Promise<bigint | undefined>;
  abstract storedVersion(projection: string): Promise<number | undefined>;
  abstract storedWaitForCheckpoint(projection: string, position: bigint, timeoutMs: number): Promise<boolean>;
  abstract storedDrop(prefix: string, generation: number): Promise<void>;
  abstract acquireLease(projection: string, holder: string, ttlMs: number): Promise<Lease | undefined>;
  abstract renewLease(lease: Lease, ttlMs: number): Promise<Lease | undefined>;
  abstract releaseLease(lease: Lease): Promise<void>;
  abstract readonly unitLimits: UnitLimits | undefined;
  abstract readonly changeStreamRestarts: number;
  abstract close(): Promise<void>;

  get root(): ReadStore {
    return this;
  }

  get generation(): number {
    return this.current.generation;
  }

  at(generation: number): ReadStore {
    return generation === this.current.generation ? this.current : new GenerationView(this, generation);
  }

  async switchGeneration(generation: number): Promise<void> {
    this.assertOpen();
    checkGeneration(generation);
    await this.gate.exclusive(async () => {
      await this.keepGeneration(generation);
      this.current = new GenerationView(this, generation);
    });
  }

  collection(name: string): Collection {
    this.assertOpen();
    return this.current.collection(name);
  }

  unit<T>(work: (unit: Unit) => Promise<T>): Promise<T> {
    return this.current.unit(work);
  }

  checkpoint(projection: string): Promise<bigint | undefined> {
    return this.current.checkpoint(projection);
  }

  version(projection: string): Promise<number | undefined> {
    return this.current.version(projection);
  }

  waitForCheckpoint(projection: string, position: bigint, timeoutMs: number): Promise<boolean> {
    return this.current.waitForCheckpoint(projection, position, timeoutMs);
  }

  drop(prefix = ''): Promise<void> {
    return this.current.drop(prefix);
  }
}
