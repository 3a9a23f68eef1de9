/**
 * Snapshots of a world: the World a journal adds up to at some height, kept as a file beside the
 * data so that a start replays only the entries after it. A snapshot is derived data: deleting
 * it (or a rebuild) costs a longer start, never a different world, and one that does not match
 * the journal (another format, another entry at its height) is ignored.
 *
 * The file is JSON lines: a header (format, last content id, the World's plain fields), then each
 * Map of the World, small ones as chunks of `[key, value]` pairs, the big ones (cards, receipts,
 * intents, slugs) one `key<TAB>value` a line, kept as text until a value is first read
 * (snapshot/lazy-map.ts). JSON because the World is plain data (typed data keeps large naturals as digit
 * strings) and JSON.parse reads it about twice as fast as v8's deserializer; lines because one
 * JSON text of a large town would come near V8's longest string.
 */
import fs from 'node:fs';
import path from 'node:path';
import { blankWorld, type World } from '../../cards/kernel/world.js';
import { LazyMap } from './lazy-map.js';
import { decodePast, encodePast, type Past } from '../../cards/kernel/past.js';

/** Bumped whenever World's shape or evolve's meaning changes, so old snapshots are ignored. */
export const snapshotFormat = 'town-world-4';

export interface Snapshot {
  format: string;
  world: World;
  /** Content id of the entry at height - 1: the snapshot belongs to a journal holding it. */
  lastCid: string;
}

export interface SnapshotStore {
  load(world: string): Snapshot | undefined;
  /**
   * Starts reading the world's snapshot off the event loop (the file is a few hundred MB for a
   * large town), so that `loadAhead` finds the bytes read while the start does other work.
   */
  readAhead?(world: string): void;
  /** `load`, from the bytes `readAhead` read (or reads now). */
  loadAhead?(world: string): Promise<Snapshot | undefined>;
  /** Writes the snapshot now, in one go. */
  save(world: string, snapshot: Snapshot): void;
  /**
   * Writes the snapshot a block at a time, giving the event loop back between blocks, so a
   * snapshot of a large world (seconds of encoding) never stalls the requests being served. The
   * snapshot must be one nobody changes while it is written (`frozenSnapshot`).
   */
  saveInSteps(world: string, snapshot: FrozenSnapshot): Promise<void>;
}

const fileName = (world: string) => `${encodeURIComponent(world)}.snapshot`;
const chunk = 5000;
/** The World's big Maps: loaded as text and decoded value by value when first read. */
const lazyMaps = new Set(['cards', 'receipts', 'intents', 'slugs']);

interface Header {
  format: string;
  lastCid: string;
  plain: Record<string, unknown>;
  maps: string[];
}

/** One Map of a World as it stood: its pairs, and for a LazyMap the pairs still kept as text. */
interface FrozenMap {
  name: string;
  keys: unknown[];
  values: unknown[];
  /** A LazyMap's pairs still text: each key's and value's JSON as the file held them. */
  raw?: { count: number; keyText: (i: number) => string; text: (i: number) => string };
}

/**
 * A snapshot taken as the World stands now, that later changes to the World do not reach: its
 * plain fields and each Map's keys and values, copied out (the values themselves are shared:
 * evolve replaces a World's values, never edits them). Copying out is a few milliseconds where
 * encoding is seconds, so a live world is frozen at once and encoded later, bit by bit.
 */
export interface FrozenSnapshot {
  format: string;
  lastCid: string;
  height: number;
  plain: Record<string, unknown>;
  maps: FrozenMap[];
}

export function frozenSnapshot(s: Snapshot): FrozenSnapshot {
  const plain: Record<string, unknown> = {};
  const maps: FrozenMap[] = [];
  for (const [name, v] of Object.entries(s.world)) {
    if (!(v instanceof Map)) {
      // a carried past is three binary tables, never edited (a carry makes a new one): kept by
      // reference here, written as base64 (a few MB for a long past, one line) when encoded
      plain[name] = v;
      continue;
    }
    if (v instanceof LazyMap) {
      const { keys, values, raw } = v.frozen();
      maps.push({ name, keys, values, raw });
    } else maps.push({ name, keys: [...v.keys()], values: [...v.values()] });
  }
  return { format: s.format, lastCid: s.lastCid, height: s.world.height, plain, maps };
}

/** The snapshot as lines (no line holds a raw newline: JSON escapes them). */
export function encodeSnapshot(s: Snapshot): Generator<string> {
  return encodeFrozen(frozenSnapshot(s));
}

function* encodeFrozen(s: FrozenSnapshot): Generator<string> {
  const plain = s.plain.past === undefined ? s.plain : { ...s.plain, past: encodePast(s.plain.past as Past) };
  yield JSON.stringify({ format: s.format, lastCid: s.lastCid, plain, maps: s.maps.map((m) => m.name) } satisfies Header);
  for (const { name, keys, values, raw } of s.maps) {
    if (lazyMaps.has(name)) {
      yield JSON.stringify({ map: name, lazy: true });
      // `<key as JSON>\t<value as JSON>`: JSON text never holds a raw tab, so the first splits.
      for (let i = 0; i < keys.length; i++) yield `${JSON.stringify(keys[i])}\t${JSON.stringify(values[i])}`;
      if (raw) for (let i = 0; i < raw.count; i++) yield `${raw.keyText(i)}\t${raw.text(i)}`;
      continue;
    }
    yield JSON.stringify({ map: name });
    for (let i = 0; i < keys.length; i += chunk) {
      const pairs: unknown[] = [];
      for (let j = i; j < Math.min(i + chunk, keys.length); j++) pairs.push([keys[j], values[j]]);
      yield JSON.stringify(pairs);
    }
    if (raw) throw new Error(`the snapshot keeps ${name} decoded, and it still holds text`);
  }
}

export function decodeSnapshot(bytes: Buffer): Snapshot | undefined {
  let at = 0;
  const lineEnd = () => {
    const end = bytes.indexOf(10, at);
    return end < 0 ? bytes.length : end;
  };
  const line = (): string | undefined => {
    if (at >= bytes.length) return undefined;
    const end = lineEnd();
    const text = bytes.toString('utf8', at, end);
    at = end + 1;
    return text;
  };
  const header = JSON.parse(line() ?? 'null') as Header | null;
  if (typeof header?.format !== 'string' || typeof header.lastCid !== 'string' || !Array.isArray(header.maps)) return undefined;
  const world = { ...blankWorld(), ...header.plain } as unknown as Record<string, unknown>;
  if (world.past !== undefined) world.past = decodePast(world.past as Parameters<typeof decodePast>[0]);
  let current: Map<unknown, unknown> | undefined;
  let lazy: LazyMap<unknown, unknown> | undefined;
  while (at < bytes.length) {
    // A lazy Map's lines: nothing is decoded now; keys and values stay in `bytes` (snapshot/lazy-map.ts).
    if (lazy && bytes[at] !== 0x7b && bytes[at] !== 10) {
      const end = lineEnd();
      if (!lazy.addLine(at, end)) return undefined;
      at = end + 1;
      continue;
    }
    const text = line()!;
    if (!text) continue;
    const value = JSON.parse(text) as unknown;
    if (Array.isArray(value)) {
      if (!current) return undefined;
      for (const [k, v] of value as [unknown, unknown][]) current.set(k, v);
      continue;
    }
    const { map: name, lazy: isLazy } = value as { map?: unknown; lazy?: unknown };
    if (typeof name !== 'string' || !header.maps.includes(name)) return undefined;
    lazy = isLazy === true ? new LazyMap(bytes) : undefined;
    current = lazy ?? new Map();
    world[name] = current;
  }
  // Every Map the World has now must have come from the file, or the snapshot is of another shape.
  for (const [k, v] of Object.entries(blankWorld())) if (v instanceof Map && !header.maps.includes(k)) return undefined;
  return { format: header.format, lastCid: header.lastCid, world: world as unknown as World };
}

/** Snapshots as files under `<dataDir>/snapshots`, written whole and renamed into place. */
export function fileSnapshots(dataDir: string): SnapshotStore {
  const dir = path.join(dataDir, 'snapshots');
  /** Bytes being read ahead, by world (undefined: no file); taken by the next loadAhead. */
  const ahead = new Map<string, Promise<Buffer | undefined>>();
  const decoded = (bytes: Buffer | undefined) => {
    if (!bytes) return undefined;
    try {
      const s = decodeSnapshot(bytes);
      return s?.format === snapshotFormat ? s : undefined;
    } catch {
      return undefined; // a torn or foreign file is no snapshot
    }
  };
  const readAhead = (world: string) => {
    if (!ahead.has(world))
      ahead.set(
        world,
        fs.promises.readFile(path.join(dir, fileName(world))).catch(() => undefined),
      );
  };
  return {
    load(world) {
      try {
        return decoded(fs.readFileSync(path.join(dir, fileName(world))));
      } catch {
        return undefined;
      }
    },
    readAhead,
    async loadAhead(world) {
      readAhead(world);
      const bytes = await ahead.get(world);
      ahead.delete(world);
      return decoded(bytes);
    },
    save(world, snapshot) {
      const file = path.join(dir, fileName(world));
      const temp = `${file}.${process.pid}.tmp`;
      fs.mkdirSync(dir, { recursive: true });
      const fd = fs.openSync(temp, 'w');
      try {
        const lines = encodeSnapshot(snapshot);
        while (writeBlock(fd, lines));
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(temp, file);
    },
    async saveInSteps(world, snapshot) {
      const file = path.join(dir, fileName(world));
      // A name of its own: a `save` (at close) may write the same world's file meanwhile.
      const temp = `${file}.${process.pid}.steps.tmp`;
      fs.mkdirSync(dir, { recursive: true });
      const fd = fs.openSync(temp, 'w');
      try {
        const lines = encodeFrozen(snapshot);
        while (writeBlock(fd, lines)) await new Promise<void>((r) => setImmediate(r));
        fs.closeSync(fd);
      } catch (error) {
        fs.closeSync(fd);
        fs.rmSync(temp, { force: true });
        throw error;
      }
      fs.renameSync(temp, file);
    },
  };
}

/**
 * Writes the next block of lines (about a megabyte: one write per line would be a syscall per
 * receipt); false once the lines are done.
 */
function writeBlock(fd: number, lines: Iterator<string>): boolean {
  const out: string[] = [];
  let size = 0;
  for (;;) {
    const next = lines.next();
    if (next.done) break;
    out.push(next.value);
    size += next.value.length;
    if (size > 1 << 20) {
      fs.writeSync(fd, `${out.join('\n')}\n`);
      return true;
    }
  }
  if (out.length) fs.writeSync(fd, `${out.join('\n')}\n`);
  return false;
}

/** No snapshots (EventStoreDB deployments without a local data directory, and some tests). */
export const noSnapshots: SnapshotStore = { load: () => undefined, save: () => {}, saveInSteps: async () => {} };
