/** Bad input never crashes the kernel: random JSON as fields, arguments, spells and roots. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decide } from '../../../src/cards/kernel/decide.js';
import type { Outcome } from '../../../src/cards/kernel/outcome.js';
import { Harness, ann, bob } from './harness.js';
import { rng } from './random.js';

function junk(r: ReturnType<typeof rng>, depth = 0): unknown {
  const k = r.int(depth > 4 ? 6 : 9);
  switch (k) {
    case 0:
      return null;
    case 1:
      return r.pick([0, 1, -1, 1.5, 1e300, Number.MAX_SAFE_INTEGER, 2 ** 60]);
    case 2:
      return r.pick(['', 'x', '__proto__', 'lamp', '<natural 0..9>', '"', '{made 1}', 'me', 'a'.repeat(300)]);
    case 3:
      return r.chance(0.5);
    case 4:
      return { tag: r.pick(['natural', 'label', 'record', 'list', 'variant', 'boolean', 'nope']), value: junk(r, depth + 1) };
    case 5:
      return { tag: 'record', fields: [{ name: r.pick(['measures', 'to', '__proto__', 'rows']), value: junk(r, depth + 1) }] };
    case 6:
      return Array.from({ length: r.int(3) }, () => junk(r, depth + 1));
    case 7:
      return JSON.parse(`{"__proto__": ${JSON.stringify(junk(r, depth + 1) ?? null)}, "measures": ${JSON.stringify(junk(r, depth + 1) ?? null)}}`);
    default:
      return { measures: junk(r, depth + 1), to: junk(r, depth + 1), text: junk(r, depth + 1), key: junk(r, depth + 1) };
  }
}

test('3,000 turns of random JSON: every outcome is a receipt, a report or a refusal; nothing throws', () => {
  const h = Harness.town();
  h.arrive(ann);
  const r = rng(7);
  const objects = ['lamp', 'notice-board', 'town', 'avatar-ann', 'square', 'door-square-library', 'nowhere'];
  const methods = ['light', 'fill', 'give', 'add', 'update', 'put', 'receive', 'become', 'lend', 'make', 'plan', 'quiet', 'adopt', 'go', 'paint', ''];
  const kinds = new Set<string>();
  for (let i = 0; i < 3000; i++) {
    const body: Record<string, unknown> = {};
    const which = r.int(4);
    if (which === 0) body.fields = junk(r);
    else if (which === 1) body.argument = junk(r);
    else if (which === 2) body.spell = r.chance(0.8) ? String(junk(r)) : (junk(r) as string);
    if (r.chance(0.1)) body.if = [{ object: r.pick(objects), version: junk(r) }];
    if (r.chance(0.1)) body.try = true;
    let o: Outcome;
    try {
      o = decide(
        h.world,
        { kind: 'turn', principal: r.pick([ann, bob]), intent: `j${i}`, object: r.pick(objects), method: r.pick(methods), ...body },
        h.clock,
        h.programs,
        h.options,
      );
    } catch (e) {
      throw new Error(`threw on ${JSON.stringify(body).slice(0, 300)}: ${(e as Error).stack}`);
    }
    kinds.add(o.kind);
    assert.ok(['journal', 'refused', 'try', 'repeat'].includes(o.kind), o.kind);
  }
  assert.ok(kinds.has('journal') && kinds.has('try'));
});

test.run();
