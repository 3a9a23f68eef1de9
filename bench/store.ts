/**
 * Event store bench: durable appends per second of the embedded store at 1 and 48 concurrent
 * writers, against a raw baseline measured in the same run on the same disk: a plain file
 * append + fdatasync loop with the same batching (1 writer: one fdatasync per record; 48
 * writers: the records waiting when the disk is free, up to 48, share one fdatasync). Raw and
 * store phases alternate for several rounds and each round gives its own ratio, so that load
 * from other processes hits both sides alike; the median ratio is the figure.
 *
 * Then the open phase: a journal of 200,000 events is built, and opening it is timed, with its
 * index up to date and with the index deleted (the whole journal re-indexed).
 *
 *   npm run bench -- store [--seconds=1] [--rounds=5] [--events=200000] [--no-open] [--json]
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { openEmbeddedEventStore } from '../src/stores/embedded/event-store.js';

export interface StoreBenchOptions {
  /** Seconds per measured phase. */
  seconds?: number;
  /** Raw/store phase pairs per writer count. */
  rounds?: number;
  writerCounts?: number[];
  /** Events in the journal of the open phase; 0 skips it. */
  openEvents?: number;
  /** Where the files go; a fresh temp directory under it is removed afterwards. */
  dir?: string;
}

export interface PhaseResult {
  writers: number;
  perSecond: number;
  /** Appends (store) or records (raw) per commit / fdatasync. */
  perCommit: number;
  /** Main-thread busy time per append, microseconds (event-loop utilisation x time / appends). */
  busyMicros: number;
}

export interface OpenResult {
  events: number;
  journalBytes: number;
  /** Opening with an up-to-date index. */
  openMs: number;
  /** Reading the first page of $all and one stream right after opening. */
  firstReadMs: number;
  /** Opening after the index was deleted: the whole journal is re-indexed. */
  reindexOpenMs: number;
  /** Paging through all of $all. */
  readAllPerSecond: number;
}

export interface StoreBenchResult {
  store: PhaseResult[][];
  raw: PhaseResult[][];
  /** store / raw for each round, and their median, at each writer count. */
  ratios: Array<{ writers: number; rounds: number[]; median: number }>;
  open?: OpenResult;
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
    const elu = performance.eventLoopUtilization();
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
    const busy = performance.eventLoopUtilization(elu).active;
    const elapsed = (performance.now() - started) / 1000;
    const commits = store.commits - commitsBefore;
    return { writers, perSecond: appends / elapsed, perCommit: appends / commits, busyMicros: (busy * 1000) / appends };
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
    const elu = performance.eventLoopUtilization();
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        for (let seq = 0; performance.now() < end; seq++) {
          const record = { id: randomUUID(), stream: `bench-${w}`, type: 'TurnTaken', data: payload(w, seq), created: Date.now() };
          await append(Buffer.from(JSON.stringify(record) + '\n'));
          records++;
        }
      }),
    );
    const busy = performance.eventLoopUtilization(elu).active;
    const elapsed = (performance.now() - started) / 1000;
    return { writers, perSecond: records / elapsed, perCommit: records / syncs, busyMicros: (busy * 1000) / records };
  } finally {
    fs.closeSync(fd);
  }
}

async function openPhase(dir: string, events: number): Promise<OpenResult> {
  const dataDir = fs.mkdtempSync(path.join(dir, 'open-'));
  const streams = 2_000;
  const perAppend = 100;
  let store = await openEmbeddedEventStore({ dataDir });
  try {
    // Built with big appends, 20 in flight at a time: this part is not measured.
    for (let done = 0; done < events; ) {
      const batch: Array<Promise<unknown>> = [];
      for (let k = 0; k < 20 && done < events; k++) {
        const n = Math.min(perAppend, events - done);
        const stream = `card-${(done / perAppend) % streams}`;
        const list = Array.from({ length: n }, (_, i) => ({ id: randomUUID(), type: 'TurnTaken', data: payload(k, done + i) }));
        batch.push(store.append(stream, list, 'any'));
        done += n;
      }
      await Promise.all(batch);
    }
  } finally {
    await store.close();
  }
  const journalBytes = fs.statSync(path.join(dataDir, 'events', 'journal')).size;
  const timeOpen = async () => {
    const started = performance.now();
    store = await openEmbeddedEventStore({ dataDir });
    return performance.now() - started;
  };
  const openMs = await timeOpen();
  const readStarted = performance.now();
  for await (const _ of store.readAll({ maxCount: 256 }));
  await store.readStream('card-7');
  const firstReadMs = performance.now() - readStarted;
  const scanStarted = performance.now();
  let seen = 0;
  for await (const _ of store.readAll()) seen++;
  const readAllPerSecond = seen / ((performance.now() - scanStarted) / 1000);
  await store.close();
  for (const file of ['data.mdb', 'lock.mdb']) fs.rmSync(path.join(dataDir, 'events', file), { force: true });
  const reindexOpenMs = await timeOpen();
  const head = await store.headPosition();
  await store.close();
  if (head !== BigInt(events) || seen !== events) throw new Error(`open phase: head ${head}, read ${seen}, expected ${events}`);
  fs.rmSync(dataDir, { recursive: true, force: true });
  return { events, journalBytes, openMs, firstReadMs, reindexOpenMs, readAllPerSecond };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export async function runStoreBench(options: StoreBenchOptions = {}): Promise<StoreBenchResult> {
  const seconds = options.seconds ?? 1;
  const rounds = options.rounds ?? 5;
  const writerCounts = options.writerCounts ?? [1, 48];
  const openEvents = options.openEvents ?? 200_000;
  const dir = fs.mkdtempSync(path.join(options.dir ?? os.tmpdir(), 'town-bench-'));
  try {
    const store: PhaseResult[][] = [];
    const raw: PhaseResult[][] = [];
    for (const writers of writerCounts) {
      const s: PhaseResult[] = [];
      const r: PhaseResult[] = [];
      for (let round = 0; round < rounds; round++) {
        r.push(await rawPhase(dir, writers, seconds));
        s.push(await storePhase(dir, writers, seconds));
      }
      store.push(s);
      raw.push(r);
    }
    const ratios = writerCounts.map((writers, i) => {
      const perRound = store[i]!.map((s, round) => s.perSecond / raw[i]![round]!.perSecond);
      return { writers, rounds: perRound, median: median(perRound) };
    });
    const result: StoreBenchResult = { store, raw, ratios };
    if (openEvents > 0) result.open = await openPhase(dir, openEvents);
    return result;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function main(args: string[]): Promise<void> {
  const arg = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const result = await runStoreBench({
    seconds: Number(arg('seconds') ?? 1),
    rounds: Number(arg('rounds') ?? 5),
    openEvents: args.includes('--no-open') ? 0 : Number(arg('events') ?? 200_000),
  });
  if (args.includes('--json')) {
    console.log(JSON.stringify(result));
    return;
  }
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const pct = (n: number) => `${(n * 100).toFixed(0)}%`;
  const phase = (p: PhaseResult[]) => {
    const m = median(p.map((x) => x.perSecond));
    return `${fmt(m).padStart(7)} (${median(p.map((x) => x.perCommit)).toFixed(1)}, ${median(p.map((x) => x.busyMicros)).toFixed(1)} µs)`;
  };
  console.log('medians over rounds; (appends per fdatasync, main-thread µs per append)');
  console.log('writers | raw append+fdatasync /s      | embedded store appends /s    | store/raw median (each round)');
  result.ratios.forEach(({ writers, rounds, median: m }, i) => {
    console.log(
      `${String(writers).padStart(7)} | ${phase(result.raw[i]!).padEnd(28)} | ${phase(result.store[i]!).padEnd(28)} | ` +
        `${pct(m)} (${rounds.map(pct).join(' ')})`,
    );
  });
  const open = result.open;
  if (open) {
    console.log(
      `open ${fmt(open.events)} events (${(open.journalBytes / 1e6).toFixed(0)} MB journal): ${fmt(open.openMs)} ms; ` +
        `first page + one stream ${open.firstReadMs.toFixed(1)} ms; with the index deleted (full re-index) ${fmt(open.reindexOpenMs)} ms; ` +
        `readAll ${fmt(open.readAllPerSecond)} events/s`,
    );
  }
}

const invokedDirectly = process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname;
if (invokedDirectly) {
  main(process.argv.slice(2)).catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
