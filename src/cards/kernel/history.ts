/**
 * A world as it stood at a height, without a copy of it: what a fork of the town reads through to.
 *
 * The world keeps changing under a fork, so while a fork holds a height (a pin), the world's
 * history keeps, for each card, package, kind and avatar changed since, its value before the
 * first change at or after each pinned height. A read at a pinned height is then the value in
 * that history when the key changed since, else the world's value now. Nothing is recorded while
 * nothing is pinned, and a key keeps at most one record per pin: memory follows what changed
 * since the oldest open fork, never the size of the world.
 *
 * `frozenAt` gives the read-only maps of a world at a height: from a pin of a live world, or from
 * a world nobody changes any more (one replayed from its journal up to that height).
 */
import type { Card, Entry, Package } from './entry.js';
import { KeyedMap } from './keyed-map.js';
import { blankWorld, canSee, type World } from './world.js';

const ABSENT = Symbol('absent');
type Prev<V> = V | typeof ABSENT;

interface Change<V> {
  height: number;
  prev: Prev<V>;
}

/** Read access to one map of a world as it stood at a height. */
export interface Frozen<K, V> {
  get(key: K): V | undefined;
  has(key: K): boolean;
  keys(): Iterable<K>;
}

/** The history of one map of the world (the map read through `live`, since the world may swap it). */
class MapHistory<K, V> {
  private readonly changes = new Map<K, Change<V>[]>();

  constructor(private readonly live: () => ReadonlyMap<K, V>) {}

  /** `key` is about to change at `height`; `newest` is the newest pinned height. */
  record(key: K, height: number, newest: number): void {
    const list = this.changes.get(key);
    // A change since the newest pin is already recorded: every pin reads from it or from before it.
    if (list && list[list.length - 1]!.height >= newest) return;
    const live = this.live();
    const prev: Prev<V> = live.has(key) ? (live.get(key) as V) : ABSENT;
    if (list) list.push({ height, prev });
    else this.changes.set(key, [{ height, prev }]);
  }

  private at(key: K, height: number): Prev<V> {
    const list = this.changes.get(key);
    if (list) for (const c of list) if (c.height >= height) return c.prev;
    const live = this.live();
    return live.has(key) ? (live.get(key) as V) : ABSENT;
  }

  frozen(height: number): Frozen<K, V> {
    const at = (key: K) => this.at(key, height);
    const changes = this.changes;
    const live = this.live;
    return {
      get: (key) => {
        const v = at(key);
        return v === ABSENT ? undefined : v;
      },
      has: (key) => at(key) !== ABSENT,
      *keys() {
        const now = live();
        for (const key of now.keys()) if (at(key) !== ABSENT) yield key;
        for (const key of [...changes.keys()]) if (!now.has(key) && at(key) !== ABSENT) yield key;
      },
    };
  }

  /** Drops records no pin at or above `oldest` reads (all of them when nothing is pinned). */
  prune(oldest: number | undefined): void {
    if (oldest === undefined) {
      this.changes.clear();
      return;
    }
    for (const [key, list] of this.changes) {
      let i = 0;
      while (i < list.length && list[i]!.height < oldest) i++;
      if (i === list.length) this.changes.delete(key);
      else if (i > 0) list.splice(0, i);
    }
  }

  get size(): number {
    return this.changes.size;
  }
}

/** The maps of a world a fork reads through to. */
export interface FrozenWorld {
  name: string;
  host: string;
  entrance: string;
  height: number;
  cards: Frozen<string, Card>;
  packages: Frozen<string, Package>;
  kinds: Frozen<string, string>;
  avatars: Frozen<string, string>;
}

/** A height held by a fork: the world's values as they stood there, until released. */
export interface Pin {
  readonly height: number;
  readonly world: FrozenWorld;
  release(): void;
}

/** The history a live world keeps for the heights its forks hold (see the top of this file). */
export class WorldHistory {
  private readonly cards: MapHistory<string, Card>;
  private readonly packages: MapHistory<string, Package>;
  private readonly kinds: MapHistory<string, string>;
  private readonly avatars: MapHistory<string, string>;
  /** Pinned heights, each with how many forks hold it. */
  private readonly pins = new Map<number, number>();
  private newest = -1;

  constructor(private readonly world: () => World) {
    this.cards = new MapHistory(() => world().cards);
    this.packages = new MapHistory(() => world().packages);
    this.kinds = new MapHistory(() => world().kinds);
    this.avatars = new MapHistory(() => world().avatars);
  }

  /** Called before `entry` is applied to the world. */
  before(entry: Entry): void {
    if (this.newest < 0) return;
    const h = entry.height;
    const n = this.newest;
    if (entry.made) for (const c of entry.made) this.cards.record(c.id, h, n);
    if (entry.writes) for (const w of entry.writes) this.cards.record(w.id, h, n);
    if (entry.packages) for (const p of entry.packages) this.packages.record(p.pin, h, n);
    if (entry.kinds) for (const k of entry.kinds) this.kinds.record(k.name, h, n);
    if (entry.avatars) for (const a of entry.avatars) this.avatars.record(a.principal, h, n);
  }

  /**
   * Holds `height`: the world's height now, or a height another fork already holds (the history
   * answers exactly for those). Undefined for any other height: replay the journal to it instead.
   */
  pin(height: number): Pin | undefined {
    const w = this.world();
    if (height !== w.height && !this.pins.has(height)) return undefined;
    this.pins.set(height, (this.pins.get(height) ?? 0) + 1);
    this.newest = Math.max(this.newest, height);
    let released = false;
    return {
      height,
      world: {
        name: w.name,
        host: w.host,
        entrance: w.entrance,
        height,
        cards: this.cards.frozen(height),
        packages: this.packages.frozen(height),
        kinds: this.kinds.frozen(height),
        avatars: this.avatars.frozen(height),
      },
      release: () => {
        if (released) return;
        released = true;
        const left = (this.pins.get(height) ?? 1) - 1;
        if (left > 0) this.pins.set(height, left);
        else this.pins.delete(height);
        const held = [...this.pins.keys()];
        this.newest = held.length ? Math.max(...held) : -1;
        const oldest = held.length ? Math.min(...held) : undefined;
        for (const m of [this.cards, this.packages, this.kinds, this.avatars] as MapHistory<string, unknown>[]) m.prune(oldest);
      },
    };
  }

  /** Heights forks hold now (a carry waits for none to be held). */
  get held(): number {
    return this.pins.size;
  }

  /** Keys with recorded changes (the bench and tests look at it). */
  get recorded(): number {
    return this.cards.size + this.packages.size + this.kinds.size + this.avatars.size;
  }
}

/** A world nobody changes any more (replayed up to a height), read as a frozen world. */
export function frozenWorld(world: World): FrozenWorld {
  const { name, host, entrance, height, cards, packages, kinds, avatars } = world;
  return { name, host, entrance, height, cards, packages, kinds, avatars };
}

/**
 * A read-only map over a frozen one, keeping what `keep` accepts. Its size is counted once, and
 * its keys are sorted once when first walked in order (`keysFrom`: a fork's listing pages).
 */
class FrozenMap<K, V> extends KeyedMap<K, V> {
  private count: number | undefined;
  private sorted: K[] | undefined;

  constructor(
    private readonly source: Frozen<K, V>,
    private readonly keep: (value: V) => boolean,
  ) {
    super();
  }

  override get(key: K): V | undefined {
    const v = this.source.get(key);
    return v !== undefined && this.keep(v) ? v : undefined;
  }

  override has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  override *keys(): MapIterator<K> {
    for (const key of this.source.keys()) if (this.has(key)) yield key;
  }

  keysFrom(from: string | undefined, inclusive: boolean): Iterable<string> {
    this.sorted ??= [...this.keys()].sort();
    const keys = this.sorted as unknown as string[];
    // The first key at (inclusive) or after `from`.
    let lo = 0;
    let hi = keys.length;
    if (from !== undefined) {
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (keys[mid]! < from || (!inclusive && keys[mid] === from)) lo = mid + 1;
        else hi = mid;
      }
    }
    return keys.slice(lo);
  }

  override get size(): number {
    if (this.sorted) return this.sorted.length;
    if (this.count === undefined) {
      let n = 0;
      for (const _ of this.keys()) n++;
      this.count = n;
    }
    return this.count;
  }

  override set(): this {
    throw new Error('a fork reads its source as it stood: lay a layer over it to change it');
  }

  override delete(): boolean {
    throw new Error('a fork reads its source as it stood: lay a layer over it to change it');
  }

  override clear(): void {
    throw new Error('a fork reads its source as it stood: lay a layer over it to change it');
  }
}

const always = () => true;

/**
 * The world a fork starts from, before its own first entry: `source` as it stood, as `forker`
 * may see it. Cards the forker may not see there are absent (as in a copy), and so are avatars
 * standing for them; packages and kinds read through whole. The rest of a world (receipts,
 * intents, offers, sends) starts empty, as it does in a copy. Lay a layer over it to evolve it.
 */
export function forkBase(source: FrozenWorld, forker: string): World {
  const cards = new FrozenMap<string, Card>(source.cards, (c) => canSee(c, forker));
  return {
    ...blankWorld(),
    cards,
    packages: new FrozenMap(source.packages, always),
    kinds: new FrozenMap(source.kinds, always),
    avatars: new FrozenMap<string, string>(source.avatars, (object) => cards.has(object)),
  };
}

/** A map that keeps nothing: what a world replayed only to be forked needs none of. */
class Discard<K, V> extends KeyedMap<K, V> {
  override set(): this {
    return this;
  }
}

/**
 * A blank world to replay a journal into when all that is wanted is a fork of it: it keeps the
 * cards, packages, kinds and avatars (what a fork reads, `forkBase` and `forkEntry`) and drops
 * receipts, intents, offers and sends as they are applied, which are most of a long world's
 * memory. Replaying into it gives those four maps exactly as a full replay does: evolve never
 * reads the others to change them.
 */
export function forkSourceWorld(): World {
  return {
    ...blankWorld(),
    intents: new Discard(),
    pending: new Discard(),
    runs: new Discard(),
    offers: new Discard(),
    receipts: new Discard(),
    slugs: new Discard(),
    quiet: new Discard(),
    turns: new Discard(),
    seen: new Discard(),
  };
}
