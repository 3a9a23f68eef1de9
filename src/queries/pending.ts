/**
 * `GET pending`: the world's queued sends, oldest first (at most 64), leaving out any whose
 * sending or receiving card the caller may not see.
 */
import { limits } from '../contract/limits.js';
import { cardDocs, type CardDoc } from '../projections/cards.js';
import { worldKey } from '../projections/entries.js';
import { pendingDocs } from '../projections/pending.js';
import { canRead, cardDoc, type WorldReads } from './world-reads.js';

export async function pendingReply(r: WorldReads, principal: string) {
  const sends = await pendingDocs.in(r.reads).find({ world: r.world }, { sort: { world: 1, queuedAt: 1, n: 1 }, limit: 1024 });
  const ids = [...new Set(sends.flatMap((s) => [s.from, s.to]))].map((id) => worldKey(r.world, id));
  const cards = !ids.length
    ? []
    : r.state
      ? ((await Promise.all(ids.map((id) => cardDoc(r, id.slice(r.world.length + 1))))).filter((d) => d !== null) as CardDoc[])
      : ((await cardDocs.in(r.reads).find({ _id: { $in: ids } }, { projection: { readers: 1 } })) as Pick<CardDoc, '_id' | 'readers'>[]);
  const seen = new Set(cards.filter((c) => canRead(c, principal)).map((c) => c._id));
  const shown = sends.filter((s) => seen.has(worldKey(r.world, s.from)) && seen.has(worldKey(r.world, s.to)));
  return {
    count: shown.length,
    pending: shown.slice(0, limits.idsPerPage).map((s) => ({
      id: s.id,
      from: s.from,
      to: s.to,
      method: s.method,
      depth: s.depth,
      queuedAt: s.queuedAt,
      yours: s.principal === principal,
    })),
  };
}
