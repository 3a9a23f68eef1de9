/**
 * Bad input to the scratch and feed routes, on a real town: every body gets the spec's envelope
 * with a 4xx class, never a 500, a hang or a crash, and the town keeps serving.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestTown } from '../world/support.js';

const weird: unknown[] = [
  {},
  { name: '' },
  { name: 'a'.repeat(33) },
  { name: 'ok', from: 'town' },
  { name: 'ok', from: { world: 'town', height: -1 } },
  { name: 'ok', from: { world: 'town', height: 1.5 } },
  { name: 'ok', from: { world: 'town', height: '3' } },
  { name: 'ok', from: { world: 'scratch/' } },
  { name: 'ok', from: { world: 'scratch/../town' } },
  { name: 'ok', from: { world: 'town', height: 1e300 } },
  { object: 'x', entry: 'initial', intent: 'i', source: 'def initial( ->' },
  { object: '', entry: 'initial', intent: 'i', source: 'x' },
  { object: 'x', entry: 'initial', intent: 'i', modules: [] },
  { object: 'x', entry: 'initial', intent: 'i', modules: [{ name: 'a' }] },
  { object: 'x', entry: 'initial', intent: 'i', seed: [] },
  { object: 'x', entry: 'initial', intent: 'i', source: 'type S:\n  n: Natural\n\ndef initial() -> S:\n  return S { n: 0 }\n', seed: { n: 'many' } },
  { object: 'x', entry: 'initial', intent: 'i', source: 'type S:\n  n: Natural\n\ndef initial() -> S:\n  return S { n: 0 }\n', seed: { m: 1 } },
  { entry: 'nope' },
  { entry: 'f', source: 'def f() -> Natural:\n  return 1\n', arguments: [1] },
  { entry: 'f', source: 'def f(n: Natural) -> Natural:\n  return n\n', arguments: [{ tag: 'label', value: 'x' }] },
  { entry: 'f', source: 'def f() -> Natural:\n  let n = 0\n  for i in 0..100000000:\n    n = n + 1\n  return n\n' },
  { entry: 'f', fields: {}, argument: { tag: 'record', fields: [] } },
  { receipt: '' },
  { receipt: 'x'.repeat(5000) },
  { text: 'x', reply_to: 'at://' },
  { text: 'x', reply_to: 42 },
  { text: '\u0000' },
  { text: 'ok', extra: true },
  [],
  'text',
  null,
];

test('scratch and feed routes answer bad bodies with the envelope, never a 500', async () => {
  const t = await startTestTown();
  try {
    const ann = await t.guest('ann');
    assert.is((await t.post('/AGENTS.md/scratch', ann.token, { name: 'lab' })).status, 200);
    const routes = [
      '/AGENTS.md/scratch',
      '/AGENTS.md/scratch/lab/objects',
      '/AGENTS.md/scratch/lab/repl',
      '/AGENTS.md/scratch/lab/check',
      '/AGENTS.md/scratch/lab/cite',
      '/AGENTS.md/feed',
    ];
    let n = 0;
    for (const path of routes) {
      for (const body of weird) {
        const r = await t.post(path, ann.token, body);
        n++;
        assert.ok(r.status < 500, `${path} ${JSON.stringify(body).slice(0, 100)}: ${r.status} ${r.text.slice(0, 300)}`);
        if (r.status >= 400) {
          assert.type(r.json?.class, 'string', `${path}: an envelope`);
          assert.ok(r.json._links?.self, `${path}: _links`);
        }
      }
    }
    assert.ok(n > 150);
    // Still serving, and still right.
    assert.is((await t.get('/AGENTS.md/scratch/lab/world', ann.token)).status, 200);
    assert.is((await t.get('/AGENTS.md/feed', ann.token)).status, 200);
  } finally {
    await t.close();
  }
});

test.run();
