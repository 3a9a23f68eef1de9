/**
 * The archive of a past epoch: a file a carry leaves behind, holding every entry of the epoch
 * so the whole receipts the new journal no longer holds can still be read and checked.
 *
 * Format (docs/decisions/carries-and-epochs.md): the stored entries as JSON, one a line, in height
 * order; then one trailer line `{"trailer": {...}}` naming the town, the epoch, its first
 * height, the height it ends at, the entry count, the digest of the world's present at its end,
 * and the SHA-256 of every byte before the trailer. Written under a temporary name and renamed
 * once synced, so a kill leaves no half archive under the archive's name.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { PathReporter } from 'io-ts/lib/PathReporter.js';
import { contentId } from '../cards/kernel/content-id.js';
import { EntryC, type Entry } from '../cards/kernel/entry.js';
import { PastBuilder, type Past } from '../cards/kernel/past.js';

export const TrailerC = t.type({
  format: t.literal('town-epoch-archive-1'),
  town: t.string,
  epoch: t.number,
  from: t.number,
  /** The height the epoch ends at: its last entry's height plus one. */
  height: t.number,
  count: t.number,
  /** presentDigest (carry.ts) of the world at `height`. */
  digest: t.string,
  /** SHA-256 (hex) of every byte of the file before the trailer line. */
  sha256: t.string,
});
export type Trailer = t.TypeOf<typeof TrailerC>;

export class ArchiveInvalid extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`${file} is not a whole epoch archive: ${detail}`);
    this.name = 'ArchiveInvalid';
  }
}

/** Writes the epoch's entries (heights `from` upwards, consecutive) and its trailer; answers the trailer. */
export async function writeArchive(
  file: string,
  entries: AsyncIterable<Entry> | Iterable<Entry>,
  meta: { town: string; epoch: number; from: number; digest: string | (() => string) },
): Promise<Trailer> {
  const temp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(temp, 'w');
  const hash = createHash('sha256');
  let height = meta.from;
  try {
    let block: string[] = [];
    let size = 0;
    const flush = () => {
      const text = block.join('');
      hash.update(text);
      fs.writeSync(fd, text);
      block = [];
      size = 0;
    };
    for await (const entry of entries) {
      if (entry.height !== height) throw new Error(`the archive of epoch ${meta.epoch} got entry ${entry.height} where ${height} was due`);
      const line = `${JSON.stringify(entry)}\n`;
      block.push(line);
      size += line.length;
      if (size > 1 << 20) flush();
      height++;
    }
    flush();
    // the digest may be known only once every entry has passed (a carry folds them as they do)
    const digest = typeof meta.digest === 'string' ? meta.digest : meta.digest();
    const trailer: Trailer = { format: 'town-epoch-archive-1', ...meta, digest, height, count: height - meta.from, sha256: hash.digest('hex') };
    fs.writeSync(fd, `${JSON.stringify({ trailer })}\n`);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(temp, file);
    return trailer;
  } catch (error) {
    try {
      fs.closeSync(fd);
    } catch {
      // already closed
    }
    fs.rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * Reads an archive whole and checks it: every line an entry whose content id is that of its
 * body, heights consecutive from the trailer's `from`, the count and the hash. `each` sees every
 * entry in order. Answers the trailer; throws ArchiveInvalid on the first thing that is wrong.
 */
export async function verifyArchive(file: string, each?: (entry: Entry) => void): Promise<Trailer> {
  const hash = createHash('sha256');
  const entries: Entry[] = [];
  let pending: Buffer[] = [];
  let lastLine: string | undefined;
  let n = 0;
  const line = (text: string) => {
    // the line before this one was an entry (the trailer is the last line): check it now
    if (lastLine !== undefined) entry(lastLine);
    lastLine = text;
  };
  const entry = (text: string) => {
    hash.update(`${text}\n`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new ArchiveInvalid(file, `line ${n + 1} is not JSON`);
    }
    const decoded = EntryC.decode(value);
    if (isLeft(decoded)) throw new ArchiveInvalid(file, `line ${n + 1} is not an entry: ${PathReporter.report(decoded).slice(0, 2).join('; ')}`);
    const { cid, slug, ...body } = decoded.right;
    const id = contentId(body);
    if (id.cid !== cid || id.slug !== slug) throw new ArchiveInvalid(file, `entry ${decoded.right.height} is not the entry its content id ${cid} names`);
    entries.push(decoded.right);
    n++;
  };
  const stream = fs.createReadStream(file);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let at = 0;
      for (let nl = chunk.indexOf(10, at); nl >= 0; nl = chunk.indexOf(10, at)) {
        pending.push(chunk.subarray(at, nl));
        line(Buffer.concat(pending).toString('utf8'));
        pending = [];
        at = nl + 1;
      }
      if (at < chunk.length) pending.push(chunk.subarray(at));
      // entries are handed on as they are checked, so the archive is never held whole
      for (const e of entries.splice(0)) each?.(e);
    }
  } catch (error) {
    if (error instanceof ArchiveInvalid) throw error;
    throw new ArchiveInvalid(file, error instanceof Error ? error.message : String(error));
  }
  if (pending.length) throw new ArchiveInvalid(file, 'it ends in the middle of a line (no trailer)');
  if (lastLine === undefined) throw new ArchiveInvalid(file, 'it is empty');
  let trailerValue: unknown;
  try {
    trailerValue = (JSON.parse(lastLine) as { trailer?: unknown }).trailer;
  } catch {
    throw new ArchiveInvalid(file, 'its last line is not a trailer');
  }
  const trailer = TrailerC.decode(trailerValue);
  if (isLeft(trailer)) throw new ArchiveInvalid(file, 'its last line is not a trailer');
  const tr = trailer.right;
  if (n !== tr.count || tr.height - tr.from !== tr.count)
    throw new ArchiveInvalid(file, `it holds ${n} entries and its trailer says ${tr.count} (${tr.from}..${tr.height})`);
  if (hash.digest('hex') !== tr.sha256) throw new ArchiveInvalid(file, 'its bytes do not hash to the SHA-256 its trailer names');
  return tr;
}

/** The trailer of an archive, read from its end (unchecked: verifyArchive checks it). */
export function readTrailer(file: string): Trailer {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const tail = Buffer.alloc(Math.min(size, 4096));
    fs.readSync(fd, tail, 0, tail.length, size - tail.length);
    const text = tail.toString('utf8').replace(/\n$/, '');
    const last = text.slice(text.lastIndexOf('\n') + 1);
    const decoded = TrailerC.decode((JSON.parse(last) as { trailer?: unknown }).trailer);
    if (isLeft(decoded)) throw new Error('no trailer');
    return decoded.right;
  } catch {
    throw new ArchiveInvalid(file, 'its last line is not a trailer');
  } finally {
    fs.closeSync(fd);
  }
}

/** The past a verified archive leaves, laid over an older past (heights checked as they are read). */
export async function pastOfArchive(file: string, archive: string, older?: Past): Promise<{ past: Past; trailer: Trailer }> {
  const named = readTrailer(file);
  const builder = new PastBuilder({ epoch: named.epoch, from: named.from, archive, sha256: named.sha256 }, older);
  const trailer = await verifyArchive(file, (e) => {
    try {
      builder.add(e);
    } catch (error) {
      throw new ArchiveInvalid(file, error instanceof Error ? error.message : String(error));
    }
  });
  return { past: builder.finish(), trailer };
}
