/**
 * KeptCards alone: a kept document is good only under the checkpoint and the generation it was
 * read at; nothing is kept for an absent card; the number kept is bounded.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CardDoc } from '../../src/projections/cards.js';
import { KeptCards } from '../../src/queries/kept-cards.js';
import type { ReadStore } from '../../src/stores/read-store.js';

const kept = suite('KeptCards');

const doc = (id: string, version: number) => ({ _id: `town/${id}`, id, version }) as unknown as CardDoc;

kept('good while the checkpoint and the generation stay where they were at the read', () => {
  let at: bigint | undefined = 5n;
  const store = { generation: 0 } as { generation: number };
  const reads = store as unknown as ReadStore;
  const k = new KeptCards('town', () => at);
  assert.is(k.get(reads, 'lamp'), undefined, 'nothing kept yet');
  const d = doc('lamp', 1);
  assert.is(k.keep('lamp', 5n, 0, d), d);
  assert.is(k.get(reads, 'lamp'), d);
  assert.ok(Object.isFrozen(d), 'a kept document is shared, so frozen');
  at = 6n;
  assert.is(k.get(reads, 'lamp'), undefined, 'a unit committed since: read again');
  k.keep('lamp', 6n, 0, doc('lamp', 2));
  assert.is(k.get(reads, 'lamp')?.version, 2);
  store.generation = 1;
  assert.is(k.get(reads, 'lamp'), undefined, 'a live rebuild switched generations: read again');
  at = undefined;
  store.generation = 0;
  assert.is(k.get(reads, 'lamp'), undefined, 'no checkpoint known: nothing is good');
});

kept('a document read before the checkpoint moved is kept under the older one', () => {
  let at = 7n;
  const reads = { generation: 0 } as unknown as ReadStore;
  const k = new KeptCards('town', () => at);
  // Taken before the read; the projector advanced while the read was under way.
  const before = at;
  at = 8n;
  k.keep('lamp', before, 0, doc('lamp', 3));
  assert.is(k.get(reads, 'lamp'), undefined, 'stale at once: the next read reads again');
});

kept('an absent card is not kept and forgets what was', () => {
  const reads = { generation: 0 } as unknown as ReadStore;
  const k = new KeptCards('town', () => 1n);
  k.keep('gone', 1n, 0, doc('gone', 1));
  assert.is(k.keep('gone', 1n, 0, null), null);
  assert.is(k.get(reads, 'gone'), undefined);
});

kept('bounded: past its size it starts over', () => {
  const reads = { generation: 0 } as unknown as ReadStore;
  const k = new KeptCards('town', () => 1n, 3);
  for (const id of ['a', 'b', 'c']) k.keep(id, 1n, 0, doc(id, 1));
  assert.ok(k.get(reads, 'c'));
  k.keep('d', 1n, 0, doc('d', 1));
  assert.is(k.get(reads, 'a'), undefined);
  assert.ok(k.get(reads, 'd'));
});

kept.run();
