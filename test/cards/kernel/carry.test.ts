/**
 * A carry in the kernel: a town of a few thousand mixed entries carried into a new epoch reads
 * the same (every card, queued send, offer…), keeps its promises (a pre-carry intent repeats as
 * a pointer, another request under it is `duplicateIdentity`, slugs and content ids still name
 * their receipts), and decides what comes after exactly as the uncarried town would.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Command } from '../../../src/cards/kernel/commands.js';
import { isRight } from 'fp-ts/lib/Either.js';
import { carryEntries, carryEntry, CarryTooLarge, carryWorld, presentDigest, presentMaps } from '../../../src/cards/kernel/carry.js';
import { EntryC } from '../../../src/cards/kernel/entry.js';
import { evolve } from '../../../src/cards/kernel/evolve.js';
import type { Entry } from '../../../src/cards/kernel/entry.js';
import type { Answer } from '../../../src/cards/kernel/outcome.js';
import { cidText, contentId } from '../../../src/cards/kernel/content-id.js';
import {
  decodePast,
  digestOfCid,
  encodePast,
  pastAt,
  pastByCid,
  pastBySlug,
  pastBytes,
  pastIntent,
  pastOfEntries,
  slugNumber,
  type Past,
} from '../../../src/cards/kernel/past.js';
import { decodeSnapshot, encodeSnapshot } from '../../../src/commands/snapshot/world-snapshot.js';
import { blankWorld, layered, type World } from '../../../src/cards/kernel/world.js';
import { Harness, ann } from './harness.js';
import { play, randomCommand } from './random-play.js';
import { rng } from './random.js';

const archive = 'town-epoch-0.ndjson';
const h = play(7, 4000);
const H = h.world.height;
const past0 = pastOfEntries(h.journal, { epoch: 0, from: 0, archive, sha256: 'f'.repeat(64) });
const carried = carryWorld(h.world, past0);

type Turn = Extract<Command, { kind: 'turn' }>;
/** Turns whose first decision journaled an entry under their intent: (command, its entry). */
const firsts: { command: Turn; entry: Entry }[] = [];
for (const d of h.decided) {
  if (d.command.kind !== 'turn' || d.outcome.kind !== 'journal') continue;
  const entry = d.outcome.entries.find((e) => e.intent?.intent === (d.command as Turn).intent);
  if (entry) firsts.push({ command: d.command, entry });
}

test('the town is a few thousand mixed entries', () => {
  assert.ok(H >= 2000, `height ${H}`);
  const kinds = new Set(h.journal.map((e) => `${e.kind}:${e.receipt.status}`));
  for (const k of ['turn:done', 'turn:refused', 'arrival:done', 'genesis:done']) assert.ok(kinds.has(k), `${k} in ${[...kinds].join(' ')}`);
  assert.ok(firsts.length > 1000, `${firsts.length} intents`);
  assert.ok(h.world.pending.size + h.world.offers.size > 0);
});

test('every card and everything else of the present reads the same after the carry', () => {
  assert.is(carried.height, H);
  assert.is(carried.clock, h.world.clock);
  assert.is(presentDigest(carried), presentDigest(h.world));
  for (const name of presentMaps) assert.equal([...carried[name]], [...h.world[name]], name);
  assert.is(carried.receipts.size + carried.slugs.size + carried.intents.size, 0, 'the past is out of the Maps');
});

test('a pre-carry intent repeated with the same request answers the pointer', () => {
  for (const { command, entry } of firsts) {
    const before = decideOn(h.world, command);
    assert.is(before.kind === 'repeat' && before.receipt.cid, entry.cid, 'uncarried: a repeat read back from the journal');
    const o = decideOn(carried, command);
    assert.is(o.kind, 'repeat');
    const r = (o as Extract<Answer, { kind: 'repeat' }>).receipt;
    assert.equal(
      { cid: r.cid, slug: r.slug, height: r.height, status: r.status },
      { cid: entry.cid, slug: entry.slug, height: entry.height, status: entry.receipt.status },
    );
    assert.equal(r.carried, { archive, epoch: 0, height: entry.height, cid: entry.cid });
    assert.ok(r.line.includes(archive) && r.line.includes(entry.cid), r.line);
  }
});

test('another request under a pre-carry intent is duplicateIdentity naming the first', () => {
  for (const { command, entry } of firsts.slice(0, 300)) {
    const other: Turn = { ...command, method: command.method === 'douse' ? 'light' : 'douse', fields: undefined, spell: undefined, argument: undefined };
    const o = decideOn(carried, other);
    assert.is(o.kind, 'refused');
    const r = (o as Extract<Answer, { kind: 'refused' }>).receipt;
    assert.is(r.class, 'duplicateIdentity');
    assert.is(r.original, entry.cid);
    assert.ok(r.reason!.includes('before a carry'), r.reason);
    // the same intent under another principal is another intent
    const theirs = decideOn(carried, { ...command, principal: command.principal === ann ? 'guest:town.test:zed' : ann });
    assert.ok(theirs.kind !== 'repeat' || theirs.receipt.cid !== entry.cid, 'an intent is per principal');
  }
});

test('slugs and content ids of pre-carry receipts answer pointers; a shared slug lists them all', () => {
  const bySlug = new Map<string, number[]>();
  for (const e of h.journal) bySlug.set(e.slug, [...(bySlug.get(e.slug) ?? []), e.height]);
  for (const e of h.journal) {
    assert.equal(
      pastBySlug(past0, e.slug).map((r) => r.height),
      bySlug.get(e.slug),
      e.slug,
    );
    const r = pastByCid(past0, e.cid)!;
    assert.equal(r, { cid: e.cid, slug: e.slug, height: e.height, pointer: { archive, epoch: 0, height: e.height, cid: e.cid } });
  }
  // a slug two receipts share (21 bits: one in two million) names both, oldest first
  const [e0, e1] = h.journal as [Entry, Entry];
  const twin = Buffer.from(digestOfCid(e0.cid)!);
  twin[31] = twin[31]! ^ 1;
  const shared = pastOfEntries([e0, { ...e1, cid: cidText(twin) }], { epoch: 0, from: 0, archive, sha256: '' });
  assert.equal(
    pastBySlug(shared, e0.slug).map((r) => r.cid),
    [e0.cid, cidText(twin)],
  );
  assert.equal(pastBySlug(past0, 'not-a-slug'), []);
  assert.is(slugNumber('acorn-acorn'), undefined);
  assert.is(pastByCid(past0, 'bafy-not-a-cid'), undefined);
  assert.is(pastAt(past0, H), undefined);
  assert.is(pastAt(past0, -1), undefined);
  assert.is(pastIntent(past0, ann, 'never-used', 'x'), undefined);
});

test('after the carry, the town decides every command as the uncarried town does (new intents)', () => {
  const a = cloneHarness(h, h.world);
  const b = cloneHarness(h, carryWorld(h.world, past0));
  const r = rng(99);
  for (let i = 0; i < 400; i++) {
    const cmd = randomCommand(a, r, []);
    const oa = a.run(cmd);
    const ob = b.run(cmd);
    assert.is(JSON.stringify(ob), JSON.stringify(oa), `command ${i}: ${JSON.stringify(cmd).slice(0, 200)}`);
    const step = r.int(120_000);
    a.clock += step;
    b.clock += step;
  }
  assert.is(presentDigest(b.world), presentDigest(a.world));
  // the new epoch's receipts are in the Maps again, as before any carry
  assert.is(b.world.receipts.size, b.world.height - H);

  // a second carry: one past covers both epochs
  const past1 = pastOfEntries(
    b.journal.filter((e) => e.height >= H),
    { epoch: 1, from: H, archive: 'town-epoch-1.ndjson', sha256: 'e'.repeat(64) },
    past0,
  );
  assert.equal(
    past1.epochs.map((e) => [e.epoch, e.from, e.to]),
    [
      [0, 0, H],
      [1, H, b.world.height],
    ],
  );
  const twice = carryWorld(b.world, past1);
  for (const e of [...h.journal.slice(0, 50), ...b.journal.filter((x) => x.height >= H)]) {
    const p = pastByCid(past1, e.cid)!;
    assert.is(p.height, e.height);
    assert.is(p.pointer.epoch, e.height < H ? 0 : 1);
  }
  for (const { command, entry } of firsts.slice(0, 100)) {
    const o = decideOn(twice, command);
    assert.is(o.kind === 'repeat' && o.receipt.carried?.height, entry.height);
  }
  assert.throws(() => pastOfEntries(b.journal.slice(0, 3), { epoch: 1, from: 0, archive: 'x', sha256: '' }, past0), /starts at height 0/);
  assert.throws(() => carryWorld(b.world, past0), /cannot carry/);
});

test('the past round-trips through its plain form and the snapshot; it is small', () => {
  const again = decodePast(JSON.parse(JSON.stringify(encodePast(past0))) as ReturnType<typeof encodePast>);
  assertSamePast(again, past0);
  const snap = decodeSnapshot(Buffer.from(`${[...encodeSnapshot({ format: 'f', lastCid: 'c', world: carried })].join('\n')}\n`))!;
  assertSamePast(snap.world.past!, past0);
  assert.is(snapshot({ ...snap.world, past: undefined }), snapshot({ ...carried, past: undefined }));
  const torn = encodePast(past0);
  torn.digests = torn.digests.slice(0, 40);
  assert.throws(() => decodePast(torn), /does not add up/);
  assert.ok(pastBytes(past0) <= 60 * H, `${pastBytes(past0)} bytes for ${H} entries`);
});

test('the carry entry: a new epoch replayed alone from it is the carried world, and decides alike', () => {
  const entry = carryEntry(h.world, past0, 1, { file: archive, sha256: 'f'.repeat(64), height: H, digest: presentDigest(h.world) }, h.clock);
  // what a store hands back: JSON, decoded by the entry codec; its content id is its body's
  const stored = EntryC.decode(JSON.parse(JSON.stringify(entry)));
  assert.ok(isRight(stored));
  const back = (stored as { right: Entry }).right;
  const { cid, slug, ...body } = back;
  assert.equal(contentId(body), { cid, slug });
  assert.is(back.height, H);
  const alone = evolve(blankWorld(), back);
  const live = evolve(layered(h.world), back);
  for (const w of [alone, live]) {
    assert.is(w.height, H + 1);
    for (const name of presentMaps) assert.equal([...w[name]], [...carried[name]], name);
    assertSamePast(w.past!, past0);
    assert.equal([...w.receipts.keys()], [entry.cid], 'only the carry entry’s own receipt');
    assert.is(w.intents.size, 0);
  }
  assert.is(snapshot(alone), snapshot(live));
  // a journal gap is still a gap, and only a carry may begin a blank world at a height
  assert.throws(() => evolve(blankWorld(), h.journal[5]!), /does not follow/);
  assert.throws(() => evolve(layered(h.world), { ...back, height: H + 3 }), /does not follow/);
  assert.throws(() => carryEntry(h.world, past0, 1, { file: archive, sha256: '', height: H - 1, digest: '' }, h.clock), /needs a past and an archive/);
  // pre-carry promises hold on the replayed epoch
  const { command, entry: first } = firsts[firsts.length - 1]!;
  const o = decideOn(alone, command);
  assert.is(o.kind === 'repeat' && o.receipt.carried?.cid, first.cid);
});

test('a carry in parts: each part within the size, and laid in one after another they are the carried world', () => {
  const archived = { file: archive, sha256: 'f'.repeat(64), height: H, digest: presentDigest(h.world) };
  const budget = 48 * 1024;
  const parts = carryEntries(h.world, past0, 1, archived, h.clock, budget);
  assert.ok(parts.length >= 4, `${parts.length} parts`);
  for (const [i, p] of parts.entries()) {
    assert.ok(JSON.stringify(p).length <= budget, `part ${i}: ${JSON.stringify(p).length} bytes`);
    assert.equal([p.height, p.carried?.part, p.carried?.parts], [H + i, i, parts.length]);
  }
  // the same world, past, archive, clock and size: the same parts (a stopped carry is completed by them)
  assert.equal(
    carryEntries(h.world, past0, 1, archived, h.clock, budget).map((p) => p.cid),
    parts.map((p) => p.cid),
  );
  const stored = parts.map((p) => (EntryC.decode(JSON.parse(JSON.stringify(p))) as { right: Entry }).right);
  for (const start of [blankWorld(), layered(h.world)]) {
    const w = stored.reduce(evolve, start);
    assert.is(w.height, H + parts.length);
    assert.is(w.carrying, undefined);
    for (const name of presentMaps) assert.equal([...w[name]], [...carried[name]], name);
    assertSamePast(w.past!, past0);
  }
  // part-way, the world is not whole yet; out of order, a part is refused
  const partWay = stored.slice(0, 2).reduce(evolve, blankWorld());
  assert.ok(partWay.carrying && partWay.past === undefined);
  assert.throws(() => evolve(evolve(blankWorld(), stored[0]!), { ...stored[2]!, height: H + 1 }), /part 2 of .* came where part 1 was due/);
  assert.throws(() => evolve(blankWorld(), stored[1]!), /does not follow/);
  // a card larger than a part may hold: refused, nothing made
  assert.throws(
    () => carryEntries(h.world, past0, 1, archived, h.clock, 6 * 1024),
    (e: unknown) => e instanceof CarryTooLarge,
  );
});

function assertSamePast(a: Past, b: Past): void {
  assert.equal(a.epochs, b.epochs);
  assert.ok(a.digests.equals(b.digests));
  assert.equal([...a.slugs], [...b.slugs]);
  assert.ok(a.intents.equals(b.intents));
}

/** The answer a command gets on `world`, decided as the world service does (nothing applied). */
function decideOn(world: World, command: Command): Answer {
  const x = cloneHarness(h, world);
  return x.run(command);
}

function cloneHarness(from: Harness, world: World): Harness {
  const x = new Harness(from.programs, from.options);
  // a layer, so deciding on it never touches the world beneath
  x.world = layered(world);
  x.clock = from.clock;
  x.journal.push(...from.journal);
  return x;
}

function snapshot(w: World): string {
  return JSON.stringify(w, (_, v) => (v instanceof Map ? { map: [...v] } : v));
}

test.run();
