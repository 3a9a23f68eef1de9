/**
 * How `npm run rebuild -- --workers=n` splits the read models between its processes: into n
 * groups of about the same folding cost, so that the processes, which each read the whole
 * journal, finish at about the same time. The costs were measured once; a fold that becomes
 * much dearer or cheaper only makes the split less even, never the read models different.
 */
import { projectionNames, type ProjectionName } from './index.js';

/**
 * CPU µs each fold adds to an event of the journal, over reading and decoding it (which every
 * process pays): `npm run rebuild -- <name>` alone on a journal of 30,000 entries (8,000 makes,
 * the rest fills; the repository signed), minus the same run of the cheapest fold. The
 * repository's signed commits outweigh all the others together, so with two workers it folds
 * alone.
 */
export const foldCost: Record<ProjectionName, number> = {
  cards: 34,
  receipts: 57,
  offers: 16,
  pending: 1,
  guests: 2,
  feed: 6,
  hosted: 6,
  repository: 352,
};

/**
 * At most n groups of the named projections (none empty), each heavier one first given to the
 * lightest group so far (longest processing time first). Within a group, and groups by their
 * first member, the order is projectionNames', so the split is the same at every run.
 */
export function rebuildGroups(names: readonly ProjectionName[], n: number): ProjectionName[][] {
  const count = Math.max(1, Math.min(Math.floor(n), names.length));
  const groups = Array.from({ length: count }, () => ({ cost: 0, names: [] as ProjectionName[] }));
  const rank = (name: ProjectionName) => projectionNames.indexOf(name);
  const heaviestFirst = [...new Set(names)].sort((a, b) => foldCost[b] - foldCost[a] || rank(a) - rank(b));
  for (const name of heaviestFirst) {
    const lightest = groups.reduce((min, g) => (g.cost < min.cost ? g : min));
    lightest.names.push(name);
    lightest.cost += foldCost[name];
  }
  return groups
    .map((g) => g.names.sort((a, b) => rank(a) - rank(b)))
    .filter((g) => g.length > 0)
    .sort((a, b) => rank(a[0]!) - rank(b[0]!));
}
