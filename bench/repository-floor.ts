/**
 * The floor of the repository's work per entry, against the repository's own fold, over one
 * journal, in interleaved rounds (docs/performance.md, "The repository"):
 *
 *   ours        the repository projection folding the journal into a fresh read store, units of
 *               `--unit` entries (rebuildProjections with the repository alone: records, cards,
 *               tree, signed commits, blocks, frames, the read store's writes and commits)
 *   lib-add     @atproto/repo alone, in memory: each entry's record (the same value ours makes,
 *               its ed25519 receipt signature included) as DAG-CBOR and its CID, `MST.add` key
 *               after key, the root's pointer, `signCommit` and the commit block; commits of
 *               `--unit` records, as ours makes them. No read store, no diff, no proofs, no frame.
 *   batch       the same, but the records go into the library's MST by our one walk a commit
 *               (src/repository/tree-batch.ts, as ours does) instead of `MST.add` after `add`
 *   records     the records alone: value, receipt signature, DAG-CBOR and CID (no tree, no commit)
 *   lib-commit  the library's whole commit: `Repo.formatCommit` (MST.add, DataDiff, a covering
 *               proof of every key, signCommit) and `MemoryBlockstore.applyCommit`, over the first
 *               `--lib-entries` (4,000) entries only (it costs ~2 ms an entry)
 *   receipt     the ed25519 receipt signature alone (node:crypto), part of all three
 *
 * Every figure is the process's CPU (user + system, every thread: lmdb's writer, the collector)
 * per entry, so another process's load moves it less than a rate. The journal is generated once
 * (`--journal=<dir>` keeps and reuses it; the bench removes one it made).
 *
 *   npm run bench -- repository-floor [--entries=20000] [--unit=200] [--rounds=3] [--journal=<dir>]
 *     [--lib-entries=4000] [--only=ours,batch]
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TID } from '@atproto/common-web';
import { encode as cborEncode } from '@atproto/lex-cbor';
import { cidForCbor } from '@atproto/lex-data';
import { MemoryBlockstore, MST, Repo, signCommit, WriteOpAction } from '@atproto/repo';
import { libraryPrograms } from '../src/cards/kernel/library.js';
import type { Entry } from '../src/cards/kernel/entry.js';
import { TOWN_WORLD } from '../src/events/world.js';
import { entryOf } from '../src/projections/entries.js';
import { allProjections } from '../src/projectors/registry.js';
import { rebuildProjections } from '../src/projections/rebuild.js';
import { loadRepositoryKeys, type RepositoryKeys } from '../src/repository/keys.js';
import { applyPuts, type TreePut } from '../src/repository/tree-batch.js';
import { receiptMessage, recordDocOf, recordValue } from '../src/repository/records.js';
import { openEmbeddedEventStore } from '../src/stores/embedded/event-store.js';
import { openEmbeddedReadStore } from '../src/stores/embedded/read-store.js';
import { cpuUs, flag, median } from './turns-figures.js';

const servers = fileURLToPath(new URL('./turns-servers.js', import.meta.url));

async function generate(dir: string, entries: number): Promise<void> {
  const proc = fork(servers, ['--generate', dir, String(entries), '0'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    proc.once('message', () => resolve());
    proc.once('exit', (code) => (code ? reject(new Error(`generating the journal failed (${code})`)) : resolve()));
  });
  proc.disconnect();
  await new Promise((r) => (proc.exitCode !== null ? r(undefined) : proc.once('exit', r)));
}

async function townEntries(dir: string): Promise<Entry[]> {
  const events = await openEmbeddedEventStore({ dataDir: dir });
  const out: Entry[] = [];
  for await (const event of events.readAll()) {
    const stored = entryOf(event);
    if (stored && stored.world === TOWN_WORLD) out.push(stored.entry);
  }
  await events.close();
  return out;
}

/** The repository projection over the journal into a fresh read store: CPU µs an entry. */
async function ours(journal: string, scratch: string, unit: number): Promise<{ us: number; entries: number; perS: number }> {
  const events = await openEmbeddedEventStore({ dataDir: journal });
  const reads = await openEmbeddedReadStore({ dataDir: scratch });
  const repository = allProjections(libraryPrograms(), { keys: () => loadRepositoryKeys(journal) }).repository;
  const cpu = cpuUs();
  const r = await rebuildProjections(events, reads, [repository], { batch: unit });
  const us = cpuUs() - cpu;
  await reads.close();
  await events.close();
  fs.rmSync(scratch, { recursive: true, force: true });
  return { us: us / r.events, entries: r.events, perS: r.events / r.seconds };
}

/** The record each entry becomes (as ours makes it: open, signed), with its receipt signature. */
function recordOf(entry: Entry, keys: RepositoryKeys) {
  const base = recordDocOf(entry, keys.receipt.sign(receiptMessage(entry.cid)));
  return { key: base._id, collection: base.collection, rkey: base.rkey, value: recordValue({ ...base, sealed: false }) };
}

/** How a commit's records go into the tree: the library's `MST.add` after `add`, or our one walk. */
type IntoTree = (data: MST, storage: MemoryBlockstore, records: TreePut[]) => Promise<MST>;

const libraryAdds: IntoTree = async (data, _storage, records) => {
  for (const r of records) data = await data.add(r.key, r.value);
  return data;
};

const oneWalk: IntoTree = async (data, storage, records) => (await applyPuts(storage, data, records)).root;

/**
 * @atproto/repo alone, in memory: each commit's records as DAG-CBOR and CIDs, into the tree,
 * the root's pointer, the signed commit and its block. CPU µs an entry.
 */
async function signedTree(entries: Entry[], keys: RepositoryKeys, unit: number, intoTree: IntoTree): Promise<number> {
  const cpu = cpuUs();
  const storage = new MemoryBlockstore();
  let data = await MST.create(storage);
  let tick = 0;
  for (let i = 0; i < entries.length; i += unit) {
    const puts: TreePut[] = [];
    for (const entry of entries.slice(i, i + unit)) {
      const r = recordOf(entry, keys);
      puts.push({ key: r.key, value: await cidForCbor(cborEncode(r.value)), update: false });
      tick = Math.max(tick + 1, entry.clock * 1000);
    }
    data = await intoTree(data, storage, puts);
    const commit = await signCommit(
      { did: 'did:web:bench.town', version: 3, rev: TID.fromTime(tick, 0).toString(), prev: null, data: await data.getPointer() },
      keys.commit,
    );
    await cidForCbor(cborEncode(commit));
  }
  return (cpuUs() - cpu) / entries.length;
}

/** The records alone: value, receipt signature, DAG-CBOR, CID. CPU µs an entry. */
async function records(entries: Entry[], keys: RepositoryKeys): Promise<number> {
  const cpu = cpuUs();
  for (const entry of entries) await cidForCbor(cborEncode(recordOf(entry, keys).value));
  return (cpuUs() - cpu) / entries.length;
}

/** @atproto/repo's own commit: Repo.formatCommit and applyCommit, in memory. CPU µs an entry. */
async function libCommit(entries: Entry[], keys: RepositoryKeys, unit: number): Promise<number> {
  const cpu = cpuUs();
  const storage = new MemoryBlockstore();
  let repo = await Repo.create(storage, 'did:web:bench.town', keys.commit);
  for (let i = 0; i < entries.length; i += unit) {
    const writes = entries.slice(i, i + unit).map((entry) => {
      const r = recordOf(entry, keys);
      return { action: WriteOpAction.Create, collection: r.collection, rkey: r.rkey, record: r.value } as const;
    });
    const commit = await repo.formatCommit(writes as never, keys.commit);
    await storage.applyCommit(commit);
    repo = await Repo.load(storage, commit.cid);
  }
  return (cpuUs() - cpu) / entries.length;
}

function receiptAlone(entries: Entry[], keys: RepositoryKeys): number {
  const cpu = cpuUs();
  for (const entry of entries) keys.receipt.sign(receiptMessage(entry.cid));
  return (cpuUs() - cpu) / entries.length;
}

export async function main(args: string[]): Promise<Record<string, number>> {
  const count = flag(args, 'entries', 20_000);
  const unit = flag(args, 'unit', 200);
  const rounds = Math.max(1, flag(args, 'rounds', 3));
  const libEntries = flag(args, 'lib-entries', 4000);
  const only = args.find((a) => a.startsWith('--only='))?.slice(7);
  const given = args.find((a) => a.startsWith('--journal='))?.slice(10);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'town-bench-floor-'));
  const journal = given ?? path.join(root, 'journal');
  try {
    if (!fs.existsSync(path.join(journal, 'commit.key'))) await generate(journal, count);
    const entries = await townEntries(journal);
    const keys = await loadRepositoryKeys(journal);
    console.log(`journal ${journal}: ${entries.length} town entries; commits of ${unit}; CPU µs an entry (process, every thread)`);
    const rows: Record<string, number>[] = [];
    for (let round = 0; round < rounds; round++) {
      const row: Record<string, number> = {};
      const runs: [string, () => Promise<number>][] = [
        [
          'ours',
          async () => {
            const r = await ours(journal, path.join(root, `fold-${round}`), unit);
            // Signing throughput: entries folded and signed a second (wall clock: the machine's load moves it).
            row.oursEntriesPerS = r.perS;
            return r.us;
          },
        ],
        ['libAdd', () => signedTree(entries, keys, unit, libraryAdds)],
        ['batch', () => signedTree(entries, keys, unit, oneWalk)],
        ['records', () => records(entries, keys)],
        ['libCommit', () => libCommit(entries.slice(0, libEntries), keys, unit)],
        ['receipt', async () => receiptAlone(entries, keys)],
      ];
      // Alternate the order, so neither always meets the machine as the other left it.
      for (const [name, run] of round % 2 ? runs.reverse() : runs) {
        if (only && !only.split(',').includes(name)) continue;
        row[name] = await run();
      }
      rows.push(row);
      console.log(
        `round ${round + 1} (load ${os.loadavg()[0]!.toFixed(1)}): ${Object.entries(row)
          .map(([k, v]) => `${k} ${Math.round(v)}`)
          .join(', ')}`,
      );
    }
    const out: Record<string, number> = {};
    for (const name of Object.keys(rows[0]!)) out[name.endsWith('PerS') ? name : `${name}CpuUsPerEntry`] = median(rows.map((r) => r[name]!));
    console.log(
      `medians: ${Object.entries(out)
        .map(([k, v]) => `${k} ${Math.round(v)}`)
        .join(', ')}`,
    );
    return out;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
