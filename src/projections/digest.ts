/**
 * A digest of a read model: sha-256 over every document of every collection of a projection,
 * in `_id` order, each written as canonical JSON (keys sorted). A rebuild and the live read
 * model that folded the same journal must give the same digest.
 */
import { createHash } from 'node:crypto';
import type { ReadStore } from '../stores/read-store.js';
import type { Projection } from './projection.js';

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

export interface Digest {
  projection: string;
  documents: number;
  sha256: string;
}

export async function digestProjection(reads: ReadStore, projection: Projection, page = 1000): Promise<Digest> {
  const hash = createHash('sha256');
  let documents = 0;
  const omitted = new Set(projection.digestOmits ?? []);
  for (const name of projection.collections.filter((c) => !omitted.has(c)).sort()) {
    hash.update(`\u0000${name}\u0000`);
    const skipped = projection.digestOmitsFields?.[name];
    let after: string | undefined;
    for (;;) {
      const docs = await reads.collection(name).find(after === undefined ? {} : { _id: { $gt: after } }, { sort: { _id: 1 }, limit: page });
      for (const doc of docs) {
        hash.update(canonicalJson(skipped ? withoutFields(doc, skipped) : doc));
        hash.update('\n');
      }
      documents += docs.length;
      if (docs.length < page) break;
      after = docs[docs.length - 1]!._id;
    }
  }
  return { projection: projection.name, documents, sha256: hash.digest('hex') };
}

function withoutFields(doc: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  const out = { ...doc };
  for (const field of fields) delete out[field];
  return out;
}
