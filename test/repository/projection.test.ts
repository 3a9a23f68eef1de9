/**
 * The repository projection on its own: nothing of a card one may not see is in the tree (its
 * receipts' records are sealed, and sealed again or opened when the card's visibility changes),
 * commits hold at most 200 operations, revs rise, and the head does not depend on how the
 * journal was cut into units.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cborToLexRecord, readCarWithRoot, verifyRepoCar } from '@atproto/repo';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Card, Entry } from '../../src/cards/kernel/entry.js';
import { worldStream } from '../../src/events/world.js';
import { applyEvents } from '../../src/projections/projection.js';
import { RepositoryReads } from '../../src/repository/reads.js';
import { loadRepositoryKeys } from '../../src/repository/keys.js';
import {
  blocksCollection,
  firehoseCollection,
  type FrameDoc,
  headCollection,
  type HeadDoc,
  recordsCollection,
  repositoryProjection,
} from '../../src/repository/projection.js';
import type { RecordDoc } from '../../src/repository/records.js';
import type { RecordedEvent } from '../../src/stores/event-store.js';
import { openEmbeddedReadStore } from '../../src/stores/embedded/read-store.js';
import type { ReadStore } from '../../src/stores/read-store.js';
import { digestProjection } from '../../src/projections/digest.js';

const clock = Date.UTC(2026, 10, 23, 12);
const genesis: Entry = {
  height: 0,
  clock,
  kind: 'genesis',
  principal: 'town',
  world: { name: 'town', host: 'town.test', opener: 'town', entrance: '' },
  receipt: { status: 'done', line: 'the town begins', revealed: [], offers: [], usage: { ticks: 0, heap: 0, bytes: 0 } },
  cid: 'bafyreigenesis',
  slug: 'first-light-town',
};

const card = (id: string, visibility: Card['visibility']): Card => ({
  id,
  kind: 'note',
  pin: 'p',
  pinSlug: 'p',
  state: { tag: 'record', fields: [] },
  version: 1,
  owner: 'guest:town.test:ann',
  maker: 'guest:town.test:ann',
  place: '',
  visibility,
  lent: [],
  lines: [],
  born: 1,
});

/** A turn on `object` at `height`, optionally making or rewriting cards. */
function turn(height: number, object: string, more: Partial<Entry> = {}): Entry {
  return {
    height,
    clock: clock + Math.floor(height / 3),
    kind: 'turn',
    principal: 'guest:town.test:ann',
    receipt: {
      status: 'done',
      line: `ann writes secret ${height} on ${object}`,
      revealed: [],
      offers: [],
      usage: { ticks: 1, heap: 0, bytes: 0 },
      object,
      method: 'write',
    },
    cid: `bafyreientry${height}`,
    slug: `word-word-${height}`,
    ...more,
  };
}

const event = (entry: Entry, position: number): RecordedEvent => ({
  id: `e${position}`,
  stream: worldStream('town'),
  type: 'WorldEntry',
  revision: BigInt(entry.height),
  position: BigInt(position),
  data: entry,
  created: 0,
});

/** The journal of the test: a private note, written on, made public, written on, hidden again. */
function journal(): Entry[] {
  const entries: Entry[] = [genesis, turn(1, 'secret', { made: [card('secret', 'owner')] }), turn(2, 'open', { made: [card('open', 'everyone')] })];
  for (let h = 3; h < 260; h++) entries.push(turn(h, h % 2 ? 'secret' : 'open'));
  entries.push(turn(260, 'secret', { writes: [{ id: 'secret', version: 2, visibility: 'everyone' }] }));
  entries.push(turn(261, 'secret'));
  entries.push(turn(262, 'open', { writes: [{ id: 'secret', version: 3, visibility: 'owner' }] }));
  return entries;
}

async function fold(reads: ReadStore, dataDir: string, entries: Entry[], unitSize: number): Promise<void> {
  const projection = repositoryProjection({ keys: () => loadRepositoryKeys(dataDir) });
  const events = entries.map((e, i) => event(e, i + 1));
  for (let i = 0; i < events.length; i += unitSize) {
    await reads.unit((unit) => applyEvents(projection, events.slice(i, i + unitSize), unit));
  }
}

const records = async (reads: ReadStore) => (await reads.collection(recordsCollection).find({}, { sort: { height: 1 } })) as RecordDoc[];

test('receipts about a card one may not see are sealed, and follow its visibility', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-proj-'));
  const reads = await openEmbeddedReadStore({ dataDir: path.join(dir, 'a') });
  try {
    const entries = journal();
    // Up to height 259: the secret card's receipts are sealed, the open card's are not.
    await fold(reads, dir, entries.slice(0, 260), 50);
    let docs = await records(reads);
    assert.ok(docs.find((d) => d.height === 3)!.sealed, 'a turn on the private card');
    assert.not.ok(docs.find((d) => d.height === 4)!.sealed, 'a turn on the public card');
    assert.not.ok(docs.find((d) => d.height === 0)!.sealed, 'the genesis names no card');
    // Made public at 260: every record about it opens; hidden again at 262: every one is sealed.
    await fold(reads, dir, entries.slice(260, 262), 50);
    docs = await records(reads);
    assert.not.ok(
      docs.some((d) => d.object === 'secret' && d.sealed),
      'opened',
    );
    await fold(reads, dir, entries.slice(262), 50);
    docs = await records(reads);
    assert.ok(
      docs.filter((d) => d.object === 'secret').every((d) => d.sealed),
      'sealed again',
    );

    // What the tree holds: the sealed records carry no public part.
    const head = (await reads.collection(headCollection).findOne({ _id: 'head' })) as HeadDoc;
    const car = (await new RepositoryReads(reads).fullCar())!;
    const keys = await loadRepositoryKeys(dir);
    const verified = await verifyRepoCar(car, 'did:web:town.test', keys.commit.did());
    assert.is(verified.creates.length, entries.length);
    const { blocks } = await readCarWithRoot(car);
    for (const c of verified.creates) {
      const value = cborToLexRecord(blocks.get(c.cid)!) as Record<string, unknown>;
      const about = docs.find((d) => d.height === value.height)!;
      if (about.object === 'secret') {
        assert.is(value.sealed, true);
        assert.is(value.line, undefined);
        assert.is(value.object, undefined);
      }
    }
    assert.not.ok(new TextDecoder('latin1').decode(car).includes('writes secret 3 on'), 'no line of the private card in the CAR');
    // A record is its own block: the blocks collection holds the tree's nodes and commits only,
    // and each record keeps the rev of the commit that set its value.
    docs = await records(reads);
    assert.is(await reads.collection(blocksCollection).count({ _id: { $in: docs.map((d) => d.cid) } }), 0, 'no record in the blocks');
    assert.ok(
      docs.every((d) => d.rev !== undefined && d.rev <= head.rev!),
      'every record has its rev',
    );
    assert.ok(
      docs.filter((d) => d.object === 'secret').every((d) => d.rev! > docs.find((o) => o.height === 4)!.rev!),
      'a resealed record has the rev of its reseal',
    );

    // Frames: at most 200 operations each, revs rising; the reseal of 130 records fits one.
    const frames = (await reads.collection(firehoseCollection).find({}, { sort: { _id: 1 } })) as FrameDoc[];
    assert.ok(frames.every((f) => f.ops.length <= 200));
    for (let i = 1; i < frames.length; i++) assert.ok(frames[i]!.rev > frames[i - 1]!.rev, 'revs rise');
    assert.ok(frames.some((f) => f.ops.filter((o) => o.action === 'update').length >= 130));

    // The same journal in other units reaches the same head (and the digest, which leaves out the frames).
    const other = await openEmbeddedReadStore({ dataDir: path.join(dir, 'b') });
    try {
      await fold(other, dir, entries, 7);
      const otherHead = (await other.collection(headCollection).findOne({ _id: 'head' })) as HeadDoc;
      assert.is(otherHead.commit, head.commit);
      const p = repositoryProjection();
      assert.equal(await digestProjection(other, p), await digestProjection(reads, p));
    } finally {
      await other.close();
    }
  } finally {
    await reads.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
