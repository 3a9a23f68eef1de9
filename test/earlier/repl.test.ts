/**
 * Spec 9, "REPL and check" (repl): POST /AGENTS.md/repl compiles and runs an entry in the
 * caller's heap. A plain entry answers its value; an Activity runs as the caller's turn and
 * answers its plan and a checkpoint, which a later call resumes with `checkpoint` and `response`.
 * `limits` lower the run's budget; `roots` refuse a run over a card that moved.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Guest, TestTown } from '../world/support.js';
import { earlierGuest, startEarlierTown } from './support.js';

const counter = `use core

type Counter:
  total: Natural

def initial() -> Counter:
  return Counter { total: 0 }

spell add(self: Counter, n: Natural 0..100) -> Counter:
  say "{caller} adds {n}"
  return self { total: self.total + n }
`;
const spin = 'def spin(n: Natural) -> Natural:\n  if n == 0:\n    return 0\n  return spin(n - 1)\n';
const nat = (value: number) => ({ tag: 'natural', value });
const rec = (fields: Record<string, unknown>) => ({ tag: 'record', fields: Object.entries(fields).map(([name, value]) => ({ name, value })) });

let t: TestTown;
let ann: Guest;
let bob: Guest;

test.before(async () => {
  t = await startEarlierTown();
  ann = await earlierGuest(t, 'ann');
  bob = await earlierGuest(t, 'bob');
});
test.after(async () => {
  await t.close();
});

const repl = (g: Guest, body: Record<string, unknown>) => t.post('/AGENTS.md/repl', g.token, body);
/**
 * The card's version and total, once the read model shows at least `least` (reads wait for the
 * caller's own turn up to a bound; on a machine this loaded the bound can pass first).
 */
const totalOf = async (object: string, least = 0) => {
  for (let i = 0; ; i++) {
    const card = await t.get(`/AGENTS.md/heap/world/${object}`, ann.token);
    const seen = {
      version: card.json.version as number,
      total: card.json.state.fields.find((f: { name: string }) => f.name === 'total').value.value as number,
    };
    if (seen.version >= least || i >= 40) return seen;
    await new Promise((r) => setTimeout(r, 50));
  }
};

test('a plain entry answers its value (one module or several)', async () => {
  const value = await repl(ann, { source: 'def twice(n: Natural) -> Natural:\n  return n * 2\n', entry: 'twice', arguments: [nat(21)] });
  assert.is(value.status, 200, value.text);
  assert.equal({ status: value.json.status, result: value.json.result }, { status: 'value', result: nat(42) });
  assert.is(value.json.checkpoint, undefined);
  const modules = await repl(ann, {
    modules: [{ name: 'twice', source: 'def twice(n: Natural) -> Natural:\n  return n * 2\n' }],
    entry: 'twice',
    arguments: [nat(2)],
  });
  assert.equal(modules.json.result, nat(4), modules.text);
});

test('an Activity yields its plan and a checkpoint; resumed with a response it runs again on its object', async () => {
  const first = await repl(ann, { source: counter, entry: 'add', object: 'tally', intent: 'add-1', arguments: [rec({ n: nat(2) })] });
  assert.is(first.status, 200, first.text);
  assert.is(first.json.status, 'done', first.text);
  assert.equal(first.json.plan, { line: 'ann.town.test adds 2', revealed: first.json.revealed ?? [], offers: [], receipt: first.json.receipt });
  assert.type(first.json.checkpoint, 'string');
  assert.is(first.json._links.receipt.href, `/AGENTS.md/heap/receipt/${first.json.receipt.slug}`);
  assert.equal(await totalOf('tally', 1), { version: 1, total: 2 }, 'made from the module, in the heap');
  assert.is((await t.get('/AGENTS.md/world/tally', ann.token)).status, 404, 'not in the town');

  // The response as a form's fields (plain JSON), then as typed data.
  const second = await repl(ann, { checkpoint: first.json.checkpoint, response: { n: 3 }, intent: 'add-2' });
  assert.is(second.json.status, 'done', second.text);
  assert.is(second.json.plan.line, 'ann.town.test adds 3');
  const third = await repl(ann, { checkpoint: second.json.checkpoint, response: rec({ n: nat(5) }), intent: 'add-3' });
  assert.is(third.json.status, 'done', third.text);
  assert.equal(await totalOf('tally', 3), { version: 3, total: 10 });
  // The receipt of a step, by its intent, in the heap.
  assert.is((await t.get('/AGENTS.md/heap/receipt/add-3', ann.token)).json.slug, third.json.receipt.slug);
  // The same intent again is the first receipt; a refused step carries no checkpoint.
  const repeat = await repl(ann, { checkpoint: first.json.checkpoint, response: { n: 3 }, intent: 'add-2' });
  assert.is(repeat.json.receipt.slug, second.json.receipt.slug);
  const badField = await repl(ann, { checkpoint: first.json.checkpoint, response: { n: 1000 }, intent: 'add-4' });
  assert.is(badField.json.status, 'refused', badField.text);
  assert.is(badField.json.class, 'badSpell');
  assert.is(badField.json.checkpoint, undefined);
});

test('checkpoints are the town\u2019s and the caller\u2019s; the body\u2019s rules', async () => {
  const first = await repl(ann, { source: counter, entry: 'add', object: 'c2', intent: 'c2-1', arguments: [rec({ n: nat(1) })] });
  assert.is(first.json.status, 'done', first.text);
  for (const [who, checkpoint] of [
    [ann, 'made.up'],
    [ann, `${first.json.checkpoint}x`],
    [ann, 'no-dot'],
    [bob, first.json.checkpoint],
  ] as const) {
    const r = await repl(who, { checkpoint, response: { n: 1 } });
    assert.is(r.status, 400, r.text);
    assert.is(r.json.class, 'hostRequest');
    assert.match(r.json.message, /checkpoint/);
  }
  for (const body of [
    {},
    { checkpoint: first.json.checkpoint },
    { entry: 'add', response: {} },
    { checkpoint: first.json.checkpoint, response: {}, entry: 'add' },
    { checkpoint: first.json.checkpoint, response: {}, source: counter },
    { entry: 'add', limits: { ticks: -1 } },
    { entry: 'add', roots: [{ object: 'c2' }] },
    { entry: 'add', fields: { n: 1 } },
  ]) {
    const r = await repl(ann, body);
    assert.is(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
    assert.is(r.json.class, 'hostRequest');
  }
});

test('roots that moved refuse staleRoot and run nothing; limits lower the budget', async () => {
  const first = await repl(ann, { source: counter, entry: 'add', object: 'c3', intent: 'c3-1', arguments: [rec({ n: nat(1) })] });
  const { version } = await totalOf('c3', 1);
  const ok = await repl(ann, { checkpoint: first.json.checkpoint, response: { n: 1 }, intent: 'c3-2', roots: [{ object: 'c3', version }] });
  assert.is(ok.json.status, 'done', ok.text);
  const moved = await repl(ann, { checkpoint: first.json.checkpoint, response: { n: 1 }, intent: 'c3-3', roots: [{ object: 'c3', version }] });
  assert.is(moved.json.status, 'refused', moved.text);
  assert.is(moved.json.class, 'staleRoot');
  assert.is(moved.json.journaled, false);
  assert.equal(await totalOf('c3', version + 1), { version: version + 1, total: 2 }, 'nothing ran');
  const absent = await repl(ann, { entry: 'add', object: 'c3', roots: [{ object: 'nothing', version: 1 }] });
  assert.is(absent.json.class, 'staleRoot');
  const tight = await repl(ann, { source: spin, entry: 'spin', arguments: [nat(5000)], limits: { ticks: 10 } });
  assert.is(tight.json.status, 'refused', tight.text);
  assert.is(tight.json.class, 'budget');
  const roomy = await repl(ann, { source: spin, entry: 'spin', arguments: [nat(50)] });
  assert.is(roomy.json.status, 'value', roomy.text);
  const over = await repl(ann, { source: spin, entry: 'spin', arguments: [nat(50)], limits: { ticks: 10_000_000_000 } });
  assert.is(over.json.status, 'value', 'a limit above the kernel\u2019s own is the kernel\u2019s');
});

test.run();
