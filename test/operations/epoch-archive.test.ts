/**
 * The epoch archive: written whole or not at all, and every way it can be wrong is found by
 * verifyArchive (a changed byte, a missing entry, a torn end, a trailer that lies).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { carryWorld, presentDigest } from '../../src/cards/kernel/carry.js';
import type { Entry } from '../../src/cards/kernel/entry.js';
import { pastOfEntries } from '../../src/cards/kernel/past.js';
import { ArchiveInvalid, pastOfArchive, readTrailer, verifyArchive, writeArchive } from '../../src/events/epoch-archive.js';
import { play } from '../cards/kernel/random-play.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-archive-'));
const h = play(3, 600);
const file = path.join(dir, 'town-epoch-0.ndjson');
const meta = { town: 'town', epoch: 0, from: 0, digest: presentDigest(h.world) };

test('an archive holds every entry and a trailer naming height, digest and the hash of the rest', async () => {
  const trailer = await writeArchive(file, h.journal, meta);
  assert.equal(trailer, { format: 'town-epoch-archive-1', ...meta, height: h.world.height, count: h.journal.length, sha256: trailer.sha256 });
  const bytes = fs.readFileSync(file);
  const body = bytes.subarray(0, bytes.lastIndexOf(10, bytes.length - 2) + 1);
  assert.is(createHash('sha256').update(body).digest('hex'), trailer.sha256);
  assert.equal(readTrailer(file), trailer);
  const seen: Entry[] = [];
  assert.equal(await verifyArchive(file, (e) => seen.push(e)), trailer);
  assert.equal(seen, JSON.parse(JSON.stringify(h.journal)));
  assert.equal(fs.readdirSync(dir), ['town-epoch-0.ndjson'], 'no temporary file left');
});

test('the past of an archive is the past of its entries, and carries the world as they do', async () => {
  const { past, trailer } = await pastOfArchive(file, 'town-epoch-0.ndjson');
  const direct = pastOfEntries(h.journal, { epoch: 0, from: 0, archive: 'town-epoch-0.ndjson', sha256: trailer.sha256 });
  assert.equal(past.epochs, direct.epochs);
  assert.ok(past.digests.equals(direct.digests) && past.intents.equals(direct.intents));
  assert.equal([...past.slugs], [...direct.slugs]);
  assert.is(presentDigest(carryWorld(h.world, past)), trailer.digest);
});

async function invalid(name: string, edit: (bytes: Buffer) => Buffer | string, why: RegExp): Promise<void> {
  const bad = path.join(dir, name);
  fs.writeFileSync(bad, edit(fs.readFileSync(file)));
  try {
    await verifyArchive(bad);
    assert.unreachable(`${name} passed`);
  } catch (error) {
    assert.instance(error, ArchiveInvalid, String(error));
    assert.match((error as Error).message, why);
  }
}

test('every kind of damage is found', async () => {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  await invalid(
    'changed.ndjson',
    () => lines.map((l, i) => (i === 5 ? l.replace(/"clock":(\d+)/, (_, d: string) => `"clock":${Number(d) + 1}`) : l)).join('\n'),
    /entry 5 is not the entry its content id/,
  );
  await invalid('line-gone.ndjson', () => lines.filter((_, i) => i !== 7).join('\n'), /holds \d+ entries|hash/);
  await invalid('torn.ndjson', (b) => b.subarray(0, b.length - 30), /middle of a line|trailer/);
  await invalid('no-trailer.ndjson', () => `${lines.slice(0, 20).join('\n')}\n`, /trailer/);
  await invalid('not-json.ndjson', () => `{oops\n${lines.join('\n')}`, /line 1 is not JSON/);
  await invalid('empty.ndjson', () => '', /empty/);
  await invalid('lying-hash.ndjson', () => lines.map((l) => l.replace(/"sha256":"[0-9a-f]{8}/, '"sha256":"00000000')).join('\n'), /SHA-256/);
  // a line swapped for another whole entry: content ids hold, the hash does not
  await invalid('swapped.ndjson', () => lines.map((l, i) => (i === 3 ? lines[4] : i === 4 ? lines[3] : l)).join('\n'), /SHA-256/);
  const swapped = path.join(dir, 'swapped.ndjson');
  await pastOfArchive(swapped, 'x').then(
    () => assert.unreachable('a swapped archive gave a past'),
    (e: unknown) => assert.instance(e, ArchiveInvalid),
  );
});

test('an archive with a gap is never written', async () => {
  const gap = path.join(dir, 'gap.ndjson');
  await writeArchive(gap, [h.journal[0]!, h.journal[2]!], meta).then(
    () => assert.unreachable('written'),
    (e: unknown) => assert.match(String(e), /entry 2 where 1 was due/),
  );
  assert.not.ok(
    fs.readdirSync(dir).some((f) => f.startsWith('gap.ndjson')),
    'neither the archive nor its temporary file',
  );
});

test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
test.run();
