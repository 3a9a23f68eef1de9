/**
 * Snapshots of a world: the World a journal adds up to at some height, kept as a file beside the
 * data so that a start replays only the entries after it. A snapshot is derived data: deleting
 * it (or a rebuild) costs a longer start, never a different world, and one that does not match
 * the journal (another format, another entry at its height) is ignored.
 *
 * v8's serializer is used because the World is Maps of plain values, which it writes and reads
 * natively and far faster than JSON (and it keeps bigints, should a state ever hold one).
 */
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import type { World } from '../cards/kernel/world.js';

/** Bumped whenever World's shape or evolve's meaning changes, so old snapshots are ignored. */
export const snapshotFormat = 'town-world-1';

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

const fileName = (world: string) => `${encodeURIComponent(world)}.v8`;

/** Snapshots as files under `<dataDir>/snapshots`, written whole and renamed into place. */
export function fileSnapshots(dataDir: string): SnapshotStore {
  const dir = path.join(dataDir, 'snapshots');
  return {
    load(world) {
      const file = path.join(dir, fileName(world));
      let bytes: Buffer;
      try {
        bytes = fs.readFileSync(file);
      } catch {
        return undefined;
      }
      try {
        const s = v8.deserialize(bytes) as Snapshot;
        if (s?.format !== snapshotFormat || typeof s.lastCid !== 'string' || !(s.world?.cards instanceof Map)) return undefined;
        return s;
      } catch {
        return undefined; // a torn or foreign file is no snapshot
      }
    },
    save(world, snapshot) {
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, fileName(world));
      const temp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(temp, v8.serialize(snapshot));
      fs.renameSync(temp, file);
    },
  };
}

/** No snapshots (EventStoreDB deployments without a local data directory, and some tests). */
export const noSnapshots: SnapshotStore = { load: () => undefined, save: () => {} };
