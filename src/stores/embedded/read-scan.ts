/**
 * Reads of the embedded read store's committed state: a query is planned over the collection's
 * indexes (embedded/read-plan.ts), the plan's key ranges are walked, and every candidate is
 * tested against the whole filter (mingo, read-store-documents.ts). Each read runs
 * synchronously against one LMDB snapshot, so reads never wait for writes.
 */
import type { Key as LmdbKey } from 'lmdb';
import type { Doc, Filter, Sort } from '../read-store.js';
import { matcher, sortDocs } from '../read-store-documents.js';
import type { IdSet } from '../read-store-unit.js';
import { plan, type Plan, type ScanRange } from './read-plan.js';
import type { ReadEnv } from './read-env.js';

/** What queries touched, so tests can tell an index lookup from a collection scan. */
export interface ReadStats {
  /** Documents fetched and decoded by finds and counts. */
  docsRead: number;
  /** Index entries visited. */
  keysRead: number;
}

export class CommittedReads {
  readonly stats: ReadStats = { docsRead: 0, keysRead: 0 };

  constructor(private readonly lmdb: ReadEnv) {}

  /** A committed document by id (each call decodes a fresh copy: the caller may change it). */
  get(collection: string, id: string): Doc | undefined {
    return this.lmdb.existing(collection)?.docs.get([id]);
  }

  find(collection: string, filter: Filter, sort: Sort | undefined, limit: number | undefined, exclude: IdSet): Doc[] {
    const p = plan(collection, this.lmdb.defs(collection), filter, sort);
    const test = matcher(filter, p.kind === 'ids');
    const out: Doc[] = [];
    for (const doc of this.candidates(collection, p)) {
      if (exclude.size && exclude.has(doc._id)) continue;
      if (!test(doc)) continue;
      out.push(doc);
      if (p.ordered && limit !== undefined && out.length >= limit) break;
    }
    if (p.ordered) return out;
    sortDocs(out, sort);
    return limit === undefined ? out : out.slice(0, limit);
  }

  count(collection: string, filter: Filter, exclude: IdSet): number {
    const dbs = this.lmdb.existing(collection);
    if (!dbs) return 0;
    if (Object.keys(filter).length === 0) {
      let n = dbs.docs.getCount();
      for (const id of exclude.keys()) if (dbs.docs.doesExist([id])) n--;
      return n;
    }
    const p = plan(collection, this.lmdb.defs(collection), filter, undefined);
    if (p.kind === 'index' && p.exact && exclude.size === 0) {
      let n = 0;
      for (const range of p.ranges) n += dbs.idx.getKeysCount(rangeOptions(range, p.reverse));
      return n;
    }
    const test = matcher(filter, p.kind === 'ids');
    let n = 0;
    for (const doc of this.candidates(collection, p)) {
      if (exclude.size && exclude.has(doc._id)) continue;
      if (test(doc)) n++;
    }
    return n;
  }

  /** Documents a plan may match, in the plan's order (each at most once). */
  private *candidates(collection: string, p: Plan): Generator<Doc> {
    const dbs = this.lmdb.existing(collection);
    if (!dbs) return; // never written
    switch (p.kind) {
      case 'ids':
        for (const id of new Set(p.ids)) {
          const doc = dbs.docs.get([id]);
          if (doc) {
            this.stats.docsRead++;
            yield doc;
          }
        }
        return;
      case 'union': {
        const seen = new Set<string>();
        for (const part of p.parts) {
          for (const doc of this.candidates(collection, part)) {
            if (seen.has(doc._id)) continue;
            seen.add(doc._id);
            yield doc;
          }
        }
        return;
      }
      case 'primary':
        for (const range of p.ranges) {
          for (const { key, value } of dbs.docs.getRange(rangeOptions(range, p.reverse))) {
            if (range.stop && !startsWith(key[range.stop.at - 1], range.stop.prefix)) break;
            this.stats.docsRead++;
            yield value;
          }
        }
        return;
      case 'index': {
        // A multikey index or several ranges can name one document more than once.
        const seen = p.def.plain && p.ranges.length === 1 ? undefined : new Set<string>();
        for (const range of p.ranges) {
          for (const key of dbs.idx.getKeys(rangeOptions(range, p.reverse))) {
            this.stats.keysRead++;
            if (range.stop && !startsWith(key[range.stop.at - 1], range.stop.prefix)) break;
            const id = key[key.length - 1] as string;
            if (seen) {
              if (seen.has(id)) continue;
              seen.add(id);
            }
            const doc = dbs.docs.get([id]);
            if (doc) {
              this.stats.docsRead++;
              yield doc;
            }
          }
        }
        return;
      }
    }
  }
}

/** A plan's range (keys led by the collection's name) within the collection's own database. */
function rangeOptions(range: ScanRange, reverse: boolean) {
  const start = range.start.slice(1) as LmdbKey[];
  const end = range.end.slice(1) as LmdbKey[];
  // A bare collection name bounds nothing in its own database: the range starts (or ends) at its edge.
  return { start: start.length ? start : undefined, end: end.length ? end : undefined, reverse, inclusiveEnd: range.inclusiveEnd ?? false };
}

function startsWith(part: unknown, prefix: string): boolean {
  return typeof part === 'string' && part.startsWith(prefix);
}
