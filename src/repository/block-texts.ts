/**
 * @atproto/repo's `BlockMap` and `CidSet` key blocks by the CID's text and parse that text back
 * into a CID (base32, then a new CID object) on every iteration: `addMap`, `forEach`, `entries`,
 * `toList`. The repository projection moved every block of every commit through four such
 * iterations, and those parses were a tenth of what it spent per entry (docs/decisions/repository-commits.md). These helpers reach the texts the library keeps (its
 * private `map` and `set`, as of @atproto/repo 0.9) so blocks move between maps as text, and
 * the frame's CAR is written with the CIDs the projection already holds.
 *
 * If a release renames those fields, the check below fails on import rather than folding a
 * repository without its blocks.
 */
import { type Cid, parseCid } from '@atproto/lex-data';
import { BlockMap, CidSet, concatBytesAsync, writeCarStream } from '@atproto/repo';

/** The blocks of `blocks` by their CID's text (the library's own map: do not keep it). */
export function blockTexts(blocks: BlockMap): Map<string, Uint8Array> {
  return (blocks as unknown as { map: Map<string, Uint8Array> }).map;
}

/** The CIDs of `cids` as text (the library's own set: do not keep it). */
export function cidTexts(cids: CidSet): Set<string> {
  return (cids as unknown as { set: Set<string> }).set;
}

/** Copies `from`'s blocks into `into` without parsing a CID. */
export function mergeBlocks(into: BlockMap, from: BlockMap): void {
  const target = blockTexts(into);
  for (const [text, bytes] of blockTexts(from)) target.set(text, bytes);
}

/**
 * A CAR of `blocks` rooted at `root`, written by @atproto/repo (`writeCarStream`), each block's
 * CID taken from `known` when the caller holds it and parsed from its text otherwise.
 */
export function carOf(root: Cid, blocks: Map<string, Uint8Array>, known: Map<string, Cid>): Promise<Uint8Array> {
  async function* each() {
    for (const [text, bytes] of blocks) yield { cid: known.get(text) ?? parseCid(text), bytes };
  }
  return concatBytesAsync(writeCarStream(root, each()));
}

{
  const probe = new BlockMap();
  const set = new CidSet();
  if (!(blockTexts(probe) instanceof Map) || !(cidTexts(set) instanceof Set)) {
    throw new Error('@atproto/repo no longer keeps BlockMap.map / CidSet.set: update src/repository/block-texts.ts');
  }
}
