/**
 * Where a reactor (the arrivals, the feed's answers) resumes after a restart. Its reactions are
 * idempotent, so the checkpoint is only a shortcut for the next start: it is written now and then
 * (200 ms after it moves), never once per event, and a crash merely repeats a few reactions.
 */
import type { ReadStore } from '../stores/read-store.js';

export interface ReactorCheckpoint {
  /** Where the reactor resumes: after this `$all` position (undefined: from the start). */
  from: bigint | undefined;
  /** Everything up to `position` was reacted to (or passed over). */
  reached(position: bigint): void;
  /** Writes the last position reached and waits for it. */
  close(): Promise<void>;
}

/** Where a reactor's checkpoint is kept in the read store (generation 0). */
export const reactorCheckpointKey = (name: string) => `reactor.${name}`;

export async function reactorCheckpoint(store: ReadStore, name: string): Promise<ReactorCheckpoint> {
  // Not a read model: kept in generation 0 whatever generation the read models are in, so a
  // live rebuild's switch (which folds read models only) leaves the reactor where it was, and
  // under `reactor.<name>`, which no projection's drop (by its name as a prefix: `feed` would
  // take `feed-answers`) reaches. A checkpoint kept under the bare name before is read once.
  const reads = store.at(0);
  const key = reactorCheckpointKey(name);
  const from = (await reads.checkpoint(key)) ?? (await reads.checkpoint(name));
  let last: bigint | undefined;
  let saving: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const save = () => {
    timer = undefined;
    const at = last;
    if (at === undefined) return;
    saving = saving.then(() => reads.unit(async (unit) => unit.setCheckpoint(key, at))).catch(() => {});
  };
  return {
    from,
    reached(position) {
      if (last !== undefined && position <= last) return;
      last = position;
      timer ??= setTimeout(save, 200);
    },
    async close() {
      if (timer) clearTimeout(timer);
      save();
      await saving;
    },
  };
}
