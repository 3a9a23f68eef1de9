/**
 * Snapshots of a world: the World a journal adds up to at some height, kept as a file beside the
 * data so that a start replays only the entries after it. A snapshot is derived data: deleting
 * it (or a rebuild) costs a longer start, never a different world, and one that does not match
 * the journal (another format, another entry at its height) is ignored.
 *
 * The file is JSON lines: a header (format, last content id, the World's plain fields), then each
 * Map of the World, small ones as chunks of `[key, value]` pairs, the big ones (cards, receipts,
 * intents, slugs) one `key<TAB>value` a line, kept as text until a value is first read
 * (lazy-map.ts). JSON because the World is plain data (typed data keeps large naturals as digit
 * strings) and JSON.parse reads it about twice as fast as v8's deserializer; lines because one
 * JSON text of a large town would come near V8's longest string.
 */
import fs from 'node:fs';
import path from 'node:path';
import { blankWorld, type World } from '../cards/kernel/world.js';
import { LazyMap } from './lazy-map.js';
import { decodePast, encodePast, type Past } from '../cards/kernel/past.js';

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
  save(world: string, snapshot: Snapshot): void;
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

/** The snapshot as lines (no line holds a raw newline: JSON escapes them). */
export function* encodeSnapshot(s: Snapshot): Generator<string> {
  const plain: Record<string, unknown> = {};
  const maps: string[] = [];
  for (const [k, v] of Object.entries(s.world)) {
    if (v instanceof Map) maps.push(k);
    // a carried past is three binary tables: base64 (a few MB for a long past, one line)
    else if (k === 'past') plain[k] = v === undefined ? undefined : encodePast(v as Past);
    else plain[k] = v;
  }
  yield JSON.stringify({ format: s.format, lastCid: s.lastCid, plain, maps } satisfies Header);
  for (const name of maps) {
    const map = (s.world as unknown as Record<string, Map<unknown, unknown>>)[name]!;
    if (lazyMaps.has(name)) {
      yield JSON.stringify({ map: name, lazy: true });
      // `<key as JSON>\t<value as JSON>`: JSON text never holds a raw tab, so the first splits.
      const pairs = map instanceof LazyMap ? map.rawEntries() : [...map].map(([k, v]) => [k, JSON.stringify(v)] as const);
      for (const [k, v] of pairs) yield `${JSON.stringify(k)}\t${v}`;
      continue;
    }
    yield JSON.stringify({ map: name });
    let pairs: unknown[] = [];
    for (const pair of map) {
      pairs.push(pair);
      if (pairs.length >= chunk) {
        yield JSON.stringify(pairs);
        pairs = [];
      }
    }
    if (pairs.length) yield JSON.stringify(pairs);
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
    // A lazy Map's lines: only the key is read now; the value stays in `bytes` (lazy-map.ts).
    if (lazy && bytes[at] !== 0x7b && bytes[at] !== 10) {
      const end = lineEnd();
      const tab = bytes.indexOf(9, at);
      if (tab < 0 || tab > end) return undefined;
      lazy.setRaw(JSON.parse(bytes.toString('utf8', at, tab)), tab + 1);
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
  return {
    load(world) {
      let bytes: Buffer;
      try {
        bytes = fs.readFileSync(path.join(dir, fileName(world)));
      } catch {
        return undefined;
      }
      try {
        const s = decodeSnapshot(bytes);
        return s?.format === snapshotFormat ? s : undefined;
      } catch {
        return undefined; // a torn or foreign file is no snapshot
      }
    },
    save(world, snapshot) {
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, fileName(world));
      const temp = `${file}.${process.pid}.tmp`;
      const fd = fs.openSync(temp, 'w');
      try {
        // Written in blocks of lines: one write per line would be a syscall per receipt.
        let block: string[] = [];
        let size = 0;
        for (const line of encodeSnapshot(snapshot)) {
          block.push(line);
          size += line.length;
          if (size > 1 << 20) {
            fs.writeSync(fd, `${block.join('\n')}\n`);
            block = [];
            size = 0;
          }
        }
        if (block.length) fs.writeSync(fd, `${block.join('\n')}\n`);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(temp, file);
    },
  };
}

/** No snapshots (EventStoreDB deployments without a local data directory, and some tests). */
export const noSnapshots: SnapshotStore = { load: () => undefined, save: () => {} };
