/**
 * The repository projection: the town's journal as an AT Protocol repository. Each batch of
 * entries becomes records (records.ts), then, on a box that signs, one signed commit per at most
 * 200 record operations (a firehose frame holds no more), made by @atproto/repo (commit.ts),
 * each also kept as a firehose frame. It runs on a projector of its own, off the turn's path
 * (src/town/projectors.ts), so neither a turn nor the other read models wait for it.
 *
 *   repository.records   _id `<collection>/<rkey>`: every record (records.ts RecordDoc), which is
 *                        also the record's block (its value re-encoded) and keeps the rev of
 *                        the commit that set it
 *   repository.cards     _id `<card id>`: whether the card is visible to everyone
 *   repository.head      _id `head`: the did, the last height folded and the signed head
 *   repository.blocks    _id `<cid>`: the head's tree nodes and commit, each with the rev of
 *                        the commit that added it (block-store.ts)
 *   repository.firehose  _id `<seq>` (16 digits): the newest frames, for subscribeRepos
 *   repository.accounts  _id `<did>`: each hosted account's record CIDs, to frame its commits
 *
 * The hosted accounts' commits (`HostedRecordsWritten`, src/events/hosted.ts) are folded here too,
 * in journal order with the entries, each one frame among the world's (hosted/frames.ts).
 *
 * The head is a function of the journal: the commit's rev comes from the entries' clocks, and
 * K-256 signatures are deterministic (RFC 6979), so a rebuild signs the very head the live
 * projection signed and the digest covers it. The frames are not, nor the rev each block keeps:
 * how many entries one commit covers depends on how the journal arrived, so the digest leaves
 * them out (digestOmits, digestOmitsFields).
 *
 * Idempotent: entries at or below the head's height are skipped.
 */
import type { Cid } from '@atproto/lex-data';
import type { Entry } from '../cards/kernel/entry.js';
import { TOWN_WORLD, type StoredEntry } from '../events/world.js';
import { DocBatch, worldProjection } from '../projections/entries.js';
import type { Projection } from '../projections/projection.js';
import { readModel } from '../projections/read-model.js';
import type { Doc, Unit } from '../stores/read-store.js';
import type { DocBlockstore } from './block-store.js';
import { accountsCollection, blocksCollection } from './collections.js';
import type { Leaf, RepoHead, TreeWrite } from './commit.js';
import type { HostedTrees } from './hosted/tree.js';
import { hostedWrittenType } from '../events/hosted.js';
import type { RecordedEvent } from '../stores/event-store.js';
import { townDid } from '../identity/names.js';
import type { RepositoryKeys } from './keys.js';
import { objectOf, receiptMessage, recordDocOf, type RecordDoc, recordValue } from './records.js';

/** The repository's read model and its collections, as the projection and its readers name them. */
export const repositoryModel = readModel('repository');
export const repositoryName = repositoryModel.name;
export const recordDocs = repositoryModel.collection<RecordDoc>('records');
export const cardVisibilityDocs = repositoryModel.collection<CardDoc>('cards');
export const headDocs = repositoryModel.collection<HeadDoc>('head');
export const frameDocs = repositoryModel.collection<FrameDoc>('firehose');
export const recordsCollection = recordDocs.name;
export const cardsCollection = cardVisibilityDocs.name;
export const headCollection = headDocs.name;
export const firehoseCollection = frameDocs.name;
export { blocksCollection };

/** Operations in one commit at most: a firehose frame carries at most 200 (subscribeRepos#commit). */
export const opsPerCommit = 200;
/** Frames kept for subscribers resuming with a cursor; older cursors start at the oldest kept. */
export const framesKept = 2048;

export interface HeadDoc extends Doc {
  did: string;
  /** Height of the last entry folded. */
  height: number;
  /** Microseconds of the last entry's rev (see `tickOf`). */
  tick: number;
  records: number;
  /** The signed head (absent on a box that does not sign). */
  commit?: string;
  rev?: string;
  data?: string;
}

export interface CardDoc extends Doc {
  public: boolean;
}

export interface FrameOp {
  action: 'create' | 'update' | 'delete';
  path: string;
  cid: string | null;
  prev?: string;
}

/** A #commit frame as kept; `blocks` is the CAR (base64) of the commit's new and proving blocks. */
export interface FrameDoc extends Doc {
  seq: number;
  /** The repository the commit is of: a hosted account's did (hosted/frames.ts); absent, the town's. */
  repo?: string;
  commit: string;
  rev: string;
  since: string | null;
  prevData?: string;
  ops: FrameOp[];
  blocks: string;
  time: string;
  /** Height of the last entry the commit covers. */
  height: number;
}

export const frameId = (seq: number) => String(seq).padStart(16, '0');

/** One record operation as planned: its value when planned, not when committed. */
interface PlannedOp {
  action: 'create' | 'update';
  doc: RecordDoc;
  /** The record's value as a block (encoded once: its CID needs the bytes, and so does the commit). */
  leaf: Leaf;
  prev?: string;
}

interface PlannedEntry {
  entry: Entry;
  ops: PlannedOp[];
  tick: number;
}

export interface RepositoryProjectionOptions {
  /** The box's keys, or undefined on a box that does not sign (records without a tree). */
  keys?: () => Promise<RepositoryKeys | undefined>;
  /** Wall clock of the firehose frames' `time`. */
  now?: () => number;
}

/**
 * A commit's rev, in microseconds: the entry's clock, or one more than the entry before when the
 * clock has not moved on (several entries in one millisecond), plus room for the extra commits an
 * entry with more than 200 operations needs. A function of the journal alone.
 */
function tickOf(before: number, entry: Entry, ops: number): number {
  const extra = Math.max(0, Math.ceil(ops / opsPerCommit) - 1);
  return Math.max(before + 1 + extra, entry.clock * 1000);
}

/** The AT Protocol code of the fold (projection-code.ts), loaded by the first fold that needs it. */
let codeLoaded: Promise<typeof import('./projection-code.js')> | undefined;
/** The module once loaded: a record's leaf (one per record folded) takes it without waiting a tick. */
let codeModule: typeof import('./projection-code.js') | undefined;
const code = async () => codeModule ?? (codeModule = await (codeLoaded ??= import('./projection-code.js')));

/**
 * Loads the fold's AT Protocol code now: the repository's projector thread does before it says it
 * started, so that a start waits for it there as it did when the registry loaded it (and a read of
 * the repository right after a start finds what it found then).
 */
export async function loadRepositoryCode(): Promise<void> {
  await code();
}

export function repositoryProjection(options: RepositoryProjectionOptions = {}): Projection {
  let keys: Promise<RepositoryKeys | undefined> | undefined;
  const now = options.now ?? Date.now;
  /** The block store and the head as of the last unit that committed (the head checked against the head document). */
  let storage: DocBlockstore | undefined;
  let head: RepoHead | undefined;
  /**
   * The unit being folded's own block store and head, kept (as `storage` and `head`) once it
   * commits: a unit's work may run again after its first run was thrown away (MongoDB's
   * withTransaction after a WriteConflict), and the next run must start from what the store
   * holds, not from the head the run thrown away made.
   */
  let working: Working | undefined;
  interface Working {
    unit: Unit;
    storage: DocBlockstore | undefined;
    head: RepoHead | undefined;
    /** Whether the block store has begun this unit (DocBlockstore.begin). */
    begun: boolean;
  }
  const workOf = (unit: Unit): Working => {
    if (working?.unit === unit) return working;
    const w: Working = { unit, storage, head, begun: false };
    working = w;
    unit.onCommit(() => {
      storage = w.storage;
      head = w.head;
      w.storage?.settle();
      if (working === w) working = undefined;
    });
    return w;
  };

  async function fold(all: StoredEntry[], unit: Unit): Promise<void> {
    const heads = unit.collection(headCollection);
    let state = (await heads.findOne({ _id: 'head' })) as HeadDoc | null;
    const entries = all.filter((e) => e.world === TOWN_WORLD && (!state || e.entry.height > state.height)).map((e) => e.entry);
    if (!entries.length) return;
    if (!state) {
      const genesis = entries[0]!;
      // (a rebuild from a carried epoch alone meets its carry entry first: `carry` below made the head)
      if (genesis.kind !== 'genesis' || !genesis.world) throw new Error(`the town's journal starts with its genesis, not a ${genesis.kind} entry`);
      state = { _id: 'head', did: townDid(genesis.world.host), height: -1, tick: 0, records: 0 };
    }
    const signing = await (keys ??= options.keys?.() ?? Promise.resolve(undefined));

    const { planned, records } = await plan(entries, unit, state, signing);
    state.height = entries[entries.length - 1]!.height;
    state.tick = planned[planned.length - 1]!.tick;
    state.records += entries.length;
    if (signing) await commitAll(planned, unit, state, signing);
    // After the commits: each record keeps the rev of the commit that set its value.
    await records.flush();
    await heads.replaceOne({ _id: 'head' }, state, { upsert: true });
  }

  /** Records of the entries, and the records of cards whose visibility they change, in order. */
  async function plan(
    entries: Entry[],
    unit: Unit,
    state: HeadDoc,
    signing: RepositoryKeys | undefined,
  ): Promise<{ planned: PlannedEntry[]; records: DocBatch<RecordDoc> }> {
    const cards = new DocBatch(cardVisibilityDocs.in(unit));
    await cards.load(
      entries.flatMap((e) => [objectOf(e), ...(e.made ?? []).map((c) => c.id), ...(e.writes ?? []).filter((w) => w.visibility !== undefined).map((w) => w.id)]),
    );
    const records = new DocBatch(recordDocs.in(unit));
    /** Records made in this batch, by the card they are about. */
    const madeAbout = new Map<string, RecordDoc[]>();
    const isPublic = (object: string) => object === '' || cards.get(object)?.public === true;
    const out: PlannedEntry[] = [];
    let tick = state.tick;
    for (const entry of entries) {
      const turned: string[] = [];
      const see = (id: string, pub: boolean) => {
        const was = cards.get(id);
        if (was?.public === pub) return;
        if (was) turned.push(id);
        cards.set({ _id: id, public: pub });
      };
      for (const card of entry.made ?? []) see(card.id, card.visibility === 'everyone');
      for (const write of entry.writes ?? []) if (write.visibility !== undefined) see(write.id, write.visibility === 'everyone');

      const ops: PlannedOp[] = [];
      for (const id of turned) {
        for (const doc of await recordsAbout(id, unit, records, madeAbout)) {
          const sealed = !isPublic(id);
          if (doc.sealed === sealed) continue;
          const prev = doc.cid;
          const next: RecordDoc = { ...doc, sealed };
          const leaf = await leafOf(recordValue(next));
          next.cid = leaf.cid.toString();
          records.set(next);
          replaceMade(madeAbout, next);
          ops.push({ action: 'update', doc: next, leaf, prev });
        }
      }
      const sig = signing?.receipt.sign(receiptMessage(entry.cid));
      // The fields made for this record alone: completed in place rather than copied twice.
      const doc = recordDocOf(entry, sig) as RecordDoc;
      doc.sealed = !isPublic(doc.object);
      const leaf = await leafOf(recordValue(doc, sig));
      doc.cid = leaf.cid.toString();
      records.set(doc);
      if (doc.object) {
        const list = madeAbout.get(doc.object);
        if (list) list.push(doc);
        else madeAbout.set(doc.object, [doc]);
      }
      ops.push({ action: 'create', doc, leaf });
      tick = tickOf(tick, entry, ops.length);
      out.push({ entry, ops, tick });
    }
    await cards.flush();
    return { planned: out, records };
  }

  /** Signs the planned operations as commits of at most 200, keeps their frames and blocks. */
  async function commitAll(planned: PlannedEntry[], unit: Unit, state: HeadDoc, signing: RepositoryKeys): Promise<void> {
    const blocks = unit.collection(blocksCollection);
    const at = await code();
    const w = workOf(unit);
    const storage = (w.storage ??= new at.DocBlockstore(blocks));
    if (w.begun) storage.use(blocks);
    else storage.begin(blocks);
    w.begun = true;
    let head = w.head;
    if (state.commit && (!head || head.cid.toString() !== state.commit)) {
      // Started again, or the last unit did not commit: the stored head is the truth.
      head = await loadHead(storage, at.parseCid(state.commit));
    } else if (!state.commit) head = undefined;
    w.head = head;

    const frames = unit.collection(firehoseCollection);
    const [last] = (await frames.find({}, { sort: { _id: -1 }, limit: 1 })) as FrameDoc[];
    let seq = last?.seq ?? 0;
    const made: FrameDoc[] = [];
    const commit = async (ops: PlannedOp[], tick: number, height: number) => {
      // A record made and changed again within one commit is one create of its last value.
      const byPath = new Map<string, PlannedOp>();
      for (const op of ops) {
        const before = byPath.get(op.doc._id);
        byPath.set(op.doc._id, before?.action === 'create' ? { ...op, action: 'create', prev: undefined } : before ? { ...op, prev: before.prev } : op);
      }
      const writes: TreeWrite[] = [...byPath.values()].map((op) => ({ action: op.action, collection: op.doc.collection, rkey: op.doc.rkey, leaf: op.leaf }));
      const rev = at.TID.fromTime(tick, 0).toString();
      const result = await at.commitAt(storage, state.did, head, writes, signing.commit, rev);
      // The records' values, new and replaced, are the records' documents, not blocks.
      const values = new Set<string>();
      for (const op of ops) {
        op.doc.rev = rev;
        values.add(op.leaf.cid.toString());
        if (op.prev !== undefined) values.add(op.prev);
      }
      storage.apply(result.data.newBlocks, result.data.removedCids, rev, values);
      head = result.head;
      w.head = head;
      const carBlocks = new Map(at.blockTexts(result.data.newBlocks));
      for (const [text, bytes] of at.blockTexts(result.data.relevantBlocks)) carBlocks.set(text, bytes);
      made.push({
        _id: frameId(++seq),
        seq,
        commit: result.data.cid.toString(),
        rev,
        since: result.data.since,
        ...(result.prevData ? { prevData: result.prevData.toString() } : {}),
        ops: [...byPath.values()].map((op) => ({
          action: op.action,
          path: op.doc._id,
          cid: op.leaf.cid.toString(),
          ...(op.prev !== undefined ? { prev: op.prev } : {}),
        })),
        blocks: Buffer.from(await at.carOf(result.data.cid, carBlocks, result.cids)).toString('base64'),
        time: new Date(now()).toISOString(),
        height,
      });
    };

    let pending: PlannedOp[] = [];
    let pendingTick = 0;
    let pendingHeight = 0;
    for (const p of planned) {
      if (p.ops.length > opsPerCommit) {
        if (pending.length) await commit(pending, pendingTick, pendingHeight);
        pending = [];
        const parts = Math.ceil(p.ops.length / opsPerCommit);
        for (let i = 0; i < parts; i++) await commit(p.ops.slice(i * opsPerCommit, (i + 1) * opsPerCommit), p.tick - (parts - 1 - i), p.entry.height);
        continue;
      }
      if (pending.length + p.ops.length > opsPerCommit) {
        await commit(pending, pendingTick, pendingHeight);
        pending = [];
      }
      pending.push(...p.ops);
      pendingTick = p.tick;
      pendingHeight = p.entry.height;
    }
    if (pending.length) await commit(pending, pendingTick, pendingHeight);

    await storage.flush();
    if (made.length) await frames.putMany(made, { handOver: true });
    // The frames beyond the newest `framesKept` go, a hundred frames at a time.
    if (Math.floor(seq / 100) !== Math.floor((seq - made.length) / 100) && seq > framesKept) {
      await frames.deleteMany({ _id: { $lte: frameId(seq - framesKept) } });
    }
    state.commit = head!.cid.toString();
    state.rev = head!.commit.rev;
    state.data = head!.commit.data.toString();
  }

  let trees: HostedTrees | undefined;
  /** Each unit's newest hosted trees, kept in `trees` once it commits (as the head is: `working`). */
  const stagedTrees = new WeakMap<Unit, Pick<HostedTrees, 'tree' | 'keep'>>();
  const treesOf = (unit: Unit, kept: HostedTrees): Pick<HostedTrees, 'tree' | 'keep'> => {
    let staged = stagedTrees.get(unit);
    if (!staged) {
      const mine = new Map<string, { data: string; tree: Parameters<HostedTrees['keep']>[2] }>();
      staged = {
        // A tree is kept under its own root: one built from the unit's reads is right whatever the unit becomes.
        tree: async (did, data, entries) => {
          const own = mine.get(did);
          return own && own.data === (data ?? '') ? own.tree : kept.tree(did, data, entries);
        },
        keep: (did, data, tree) => void mine.set(did, { data, tree }),
      };
      stagedTrees.set(unit, staged);
      unit.onCommit(() => {
        for (const [did, { data, tree }] of mine) kept.keep(did, data, tree);
      });
    }
    return staged;
  };
  /** A hosted account's commit as the next frame (none on a box that does not sign: no firehose). */
  async function frameHosted(event: RecordedEvent, unit: Unit): Promise<void> {
    if (!(await (keys ??= options.keys?.() ?? Promise.resolve(undefined)))) return;
    const frames = unit.collection(firehoseCollection);
    const [last] = (await frames.find({}, { sort: { _id: -1 }, limit: 1 })) as FrameDoc[];
    const seq = (last?.seq ?? 0) + 1;
    const height = ((await unit.collection(headCollection).findOne({ _id: 'head' })) as HeadDoc | null)?.height ?? -1;
    const at = await code();
    trees ??= new at.HostedTrees();
    const frame = await at.hostedFrame(event, unit, treesOf(unit, trees), seq, height, new Date(now()).toISOString());
    if (frame) await frames.putMany([{ ...frame, _id: frameId(seq) }]);
  }

  const world = worldProjection({
    name: repositoryName,
    collections: [recordsCollection, cardsCollection, headCollection, blocksCollection, firehoseCollection, accountsCollection],
    indexes: [
      { collection: recordsCollection, spec: { keys: { object: 1 }, name: 'object' } },
      { collection: recordsCollection, spec: { keys: { slug: 1 }, name: 'slug' } },
      { collection: recordsCollection, spec: { keys: { entry: 1 }, name: 'entry' } },
      { collection: recordsCollection, spec: { keys: { rev: 1 }, name: 'rev' } },
      { collection: blocksCollection, spec: { keys: { rev: 1 }, name: 'rev' } },
    ],
    // Bump when `fold` (or records.ts) changes what it writes.
    // 2: hosted accounts' commits framed (repository.accounts).
    // 3: each block keeps the rev of the commit that added it (getRepo with `since`).
    // 4: a carry entry begins the repository again (carry).
    // 5: a record is its own block (not in repository.blocks) and keeps its commit's rev.
    version: 5,
    carry: async ({ world, entry }, unit) => {
      if (world !== TOWN_WORLD) return;
      const heads = unit.collection(headCollection);
      const state = (await heads.findOne({ _id: 'head' })) as HeadDoc | null;
      if (state && state.height >= entry.height) return; // folded already
      const { present, part } = entry.carried!;
      if (!part) {
        // The repository begins again at the carry: its records from before it are pointers now
        // (carried-records.ts), not signed records, and the tree holds the carried epoch alone,
        // from the carry's own record on; a rebuild from the new epoch alone makes the same.
        for (const c of [recordsCollection, cardsCollection, blocksCollection]) await unit.collection(c).deleteMany({});
        // A new block store and no head, from this unit on (kept if it commits).
        const w = workOf(unit);
        w.storage = undefined;
        w.head = undefined;
        w.begun = false;
        const begun: HeadDoc = { _id: 'head', did: townDid(present.world.host), height: entry.height - 1, tick: 0, records: 0 };
        await heads.replaceOne({ _id: 'head' }, begun, { upsert: true });
      }
      const visible = present.cards.map((c) => ({ _id: c.id, public: c.visibility === 'everyone' }));
      for (let i = 0; i < visible.length; i += 1000) await unit.collection(cardsCollection).putMany(visible.slice(i, i + 1000));
    },
    fold: async (entries, unit) => {
      try {
        await fold(entries, unit);
      } catch (error) {
        // The unit fails: what it made is dropped with it, the next one starts from what committed.
        if (working?.unit === unit) working = undefined;
        throw error;
      }
    },
  });
  /** The world's entries in runs, each hosted commit between them where the journal has it. */
  const foldMixed = async (events: RecordedEvent[], unit: Unit): Promise<void> => {
    if (!events.some((e) => e.type === hostedWrittenType)) return world.applyBatch!(events, unit);
    let run: RecordedEvent[] = [];
    for (const event of events) {
      if (event.type !== hostedWrittenType) {
        run.push(event);
        continue;
      }
      if (run.length) await world.applyBatch!(run, unit);
      run = [];
      await frameHosted(event, unit);
    }
    if (run.length) await world.applyBatch!(run, unit);
  };
  return {
    ...world,
    handles: (type) => type === hostedWrittenType || world.handles(type),
    apply: (event, unit) => foldMixed([event], unit),
    applyBatch: foldMixed,
    digestOmits: [firehoseCollection],
    // A block's (and a record's) rev is the rev of the commit that added it, and commits depend on
    // how the journal arrived as frames do (a rebuild covers more entries a commit); the blocks
    // and records themselves do not.
    digestOmitsFields: { [blocksCollection]: ['rev'], [recordsCollection]: ['rev'] },
  };
}

/** A record's value as a block: encoded once, as `cidForRecord` and the commit would each encode it. */
async function leafOf(value: ReturnType<typeof recordValue>): Promise<Leaf> {
  const at = codeModule ?? (await code());
  const bytes = at.cborEncode(value);
  return { cid: await at.cidForCbor(bytes), bytes };
}

/** A signed head from its blocks (the tree is read lazily, as commits need it). */
export async function loadHead(storage: DocBlockstore, cid: Cid): Promise<RepoHead> {
  const { def, MST } = await code();
  const commit = await storage.readObj(cid, def.commit);
  return { did: commit.did, data: MST.load(storage, commit.data), commit, cid };
}

/** Every record about card `id`: those in the store and those this batch made. */
async function recordsAbout(id: string, unit: Unit, records: DocBatch<RecordDoc>, madeAbout: Map<string, RecordDoc[]>): Promise<RecordDoc[]> {
  const stored = (await unit.collection(recordsCollection).find({ object: id }, { projection: { _id: 1 } })).map((d) => d._id);
  await records.load(stored);
  const out = new Map<string, RecordDoc>();
  for (const key of stored) {
    const doc = records.get(key);
    if (doc) out.set(key, doc);
  }
  for (const doc of madeAbout.get(id) ?? []) out.set(doc._id, records.get(doc._id) ?? doc);
  return [...out.values()].sort((a, b) => a.height - b.height);
}

function replaceMade(madeAbout: Map<string, RecordDoc[]>, doc: RecordDoc): void {
  const list = madeAbout.get(doc.object);
  if (!list) return;
  const i = list.findIndex((d) => d._id === doc._id);
  if (i >= 0) list[i] = doc;
}
