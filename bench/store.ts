/**
 * Event store bench: durable appends per second of the embedded store at 1 and 48 concurrent
 * writers, against a raw baseline measured in the same run on the same disk: a plain file
 * append + fdatasync loop with the same batching (1 writer: one fdatasync per record; 48
 * writers: the records waiting when the disk is free, up to 48, share one fdatasync).
 *
 *   npm run bench -- store [--seconds=2] [--json]
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { openEmbeddedEventStore } from '../src/stores/embedded-event-store.js';

export interface StoreBenchOptions {
  /** Seconds per measured phase (four phases). */
  seconds?: number;
  writerCounts?: number[];
  /** Where the files go; a fresh temp directory under it is removed afterwards. */
  dir?: string;
}

export interface PhaseResult {
  writers: number;
  perSecond: number;
  /** Appends (store) or records (raw) per commit / fdatasync. */
  perCommit: number;
}

export interface StoreBenchResult {
  store: PhaseResult[];
  raw: PhaseResult[];
  /** store / raw at each writer count. */
  ratios: Array<{ writers: number; ratio: number }>;
}

const fdatasync = promisify(fs.fdatasync);
const write = promisify(fs.write);

/** A turn-sized payload, about what Town appends per event. */
function payload(w: number, seq: number) {
  return { writer: w, seq, card: 'c-' + (seq % 97), spell: 'note', args: { text: 'x'.repeat(120) } };
}

async function storePhase(dir: string, writers: number, seconds: number): Promise<PhaseResult> {
  const dataDir = fs.mkdtempSync(path.join(dir, 'store-'));
  const store = await openEmbeddedEventStore({ dataDir });
  try {
    let appends = 0;
    const commitsBefore = store.commits;
    const end = performance.now() + seconds * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        // Each writer owns a stream and appends at its exact revision, as a decider does.
        let revision: bigint | undefined;
        for (let seq = 0; performance.now() < end; seq++) {
          const r = await store.append(
            `bench-${w}`,
            [{ id: randomUUID(), type: 'TurnTaken', data: payload(w, seq) }],
            revision === undefined ? 'noStream' : revision,
          );
          revision = r.nextRevision;
          appends++;
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    const commits = store.commits - commitsBefore;
    return { writers, perSecond: appends / elapsed, perCommit: appends / commits };
  } finally {
    await store.close();
  }
}

async function rawPhase(dir: string, writers: number, seconds: number): Promise<PhaseResult> {
  const file = path.join(dir, `raw-${writers}.log`);
  const fd = fs.openSync(file, 'a');
  let waiting: Array<{ bytes: Buffer; done: () => void }> = [];
  let flushing = false;
  let syncs = 0;
  // Group commit: whatever is waiting when the previous sync ends goes in the next write+sync.
  const flush = async () => {
    while (waiting.length) {
      const batch = waiting;
      waiting = [];
      await write(fd, batch.length === 1 ? batch[0]!.bytes : Buffer.concat(batch.map((b) => b.bytes)));
      await fdatasync(fd);
      syncs++;
      for (const b of batch) b.done();
      // Let the writers just released queue their next record before the next group starts.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    flushing = false;
  };
  const append = (bytes: Buffer) =>
    new Promise<void>((done) => {
      waiting.push({ bytes, done });
      if (!flushing) {
        flushing = true;
        setImmediate(flush);
      }
    });
  try {
    let records = 0;
    const end = performance.now() + seconds * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        for (let seq = 0; performance.now() < end; seq++) {
          const record = { id: randomUUID(), stream: `bench-${w}`, type: 'TurnTaken', data: payload(w, seq), created: Date.now() };
          await append(Buffer.from(JSON.stringify(record) + '\n'));
          records++;
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    return { writers, perSecond: records / elapsed, perCommit: records / syncs };
  } finally {
    fs.closeSync(fd);
  }
}

export async function runStoreBench(options: StoreBenchOptions = {}): Promise<StoreBenchResult> {
  const seconds = options.seconds ?? 2;
  const writerCounts = options.writerCounts ?? [1, 48];
  const dir = fs.mkdtempSync(path.join(options.dir ?? os.tmpdir(), 'town-bench-'));
  try {
    const store: PhaseResult[] = [];
    const raw: PhaseResult[] = [];
    for (const writers of writerCounts) {
      raw.push(await rawPhase(dir, writers, seconds));
      store.push(await storePhase(dir, writers, seconds));
    }
    const ratios = writerCounts.map((writers, i) => ({ writers, ratio: store[i]!.perSecond / raw[i]!.perSecond }));
    return { store, raw, ratios };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function main(args: string[]): Promise<void> {
  const seconds = Number(args.find((a) => a.startsWith('--seconds='))?.split('=')[1] ?? 2);
  const result = await runStoreBench({ seconds });
  if (args.includes('--json')) {
    console.log(JSON.stringify(result));
    return;
  }
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  console.log('writers | raw append+fdatasync /s (per sync) | embedded store appends /s (per commit) | store/raw');
  result.ratios.forEach(({ writers, ratio }, i) => {
    const raw = result.raw[i]!;
    const store = result.store[i]!;
    console.log(
      `${String(writers).padStart(7)} | ${fmt(raw.perSecond).padStart(12)} (${raw.perCommit.toFixed(1)}) | ` +
        `${fmt(store.perSecond).padStart(12)} (${store.perCommit.toFixed(1)}) | ${(ratio * 100).toFixed(0)}%`,
    );
  });
}

const invokedDirectly = process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname;
if (invokedDirectly) {
  main(process.argv.slice(2)).catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
