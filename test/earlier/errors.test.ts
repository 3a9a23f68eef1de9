/**
 * Spec 9, "Limits", "Turn body" and "Errors differ": on a town serving the earlier shape, bodies
 * are at most 65536 bytes, a module at most 16384, `modules` a list of at most 16 objects
 * (`badModules` otherwise); the turn body takes no `if` or `try`; `badSpell` clauses outside the
 * earlier list read `unclear`, and `cardRefused` reads as the earlier `lawRefused`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { identityOf } from '../../src/contract/names.js';
import { callRoute } from '../../src/mcp/route-call.js';
import { testLayout, testPrograms } from '../world/kinds.js';
import type { Guest, TestTown } from '../world/support.js';
import { earlierGuest, startEarlierTown } from './support.js';

let t: TestTown;
let ann: Guest;
let n = 0;
const intent = () => `e-${++n}`;

test.before(async () => {
  t = await startEarlierTown({ programs: testPrograms(), layout: testLayout });
  ann = await earlierGuest(t, 'ann');
});
test.after(async () => {
  await t.close();
});

const cast = (object: string, method: string, body: Record<string, unknown>) =>
  t.post(`/AGENTS.md/world/${object}/${method}`, ann.token, { intent: intent(), ...body });
const mod = (name: string, bytes = 10) => ({ name, source: `-- ${'x'.repeat(Math.max(0, bytes - 3))}` });

test('a body over 65536 bytes is bodyTooLarge (413) on every route, not only the identity calls', async () => {
  const big = await cast('lamp', 'light', { argument: { tag: 'label', value: 'x'.repeat(66_000) } });
  assert.is(big.status, 413, big.text);
  assert.is(big.json.class, 'bodyTooLarge');
  assert.match(big.json.message, /65536/);
  const near = await cast('lamp', 'light', { argument: { tag: 'label', value: 'x'.repeat(60_000) } });
  assert.is(near.status, 200, near.text);
});

test('moduleTooLarge at 16384 bytes; badModules when modules is not a list of at most 16 objects', async () => {
  for (const path of ['/AGENTS.md/check', '/AGENTS.md/heap/objects']) {
    const base = path.endsWith('objects') ? { object: 'm', entry: 'initial', intent: intent() } : {};
    const over = await t.post(path, ann.token, { ...base, source: 'x'.repeat(16_385) });
    assert.is(over.status, 413, `${path}: ${over.text}`);
    assert.is(over.json.class, 'moduleTooLarge');
    const overInList = await t.post(path, ann.token, { ...base, modules: [mod('a', 16_385)] });
    assert.is(overInList.json.class, 'moduleTooLarge', overInList.text);
    for (const modules of [Array.from({ length: 17 }, (_, i) => mod(`m${i}`)), 'core', { a: 1 }, [1], [mod('a'), null], [[mod('a')]]]) {
      const bad = await t.post(path, ann.token, { ...base, modules });
      assert.is(bad.status, 400, `${path} ${JSON.stringify(modules).slice(0, 60)}: ${bad.text}`);
      assert.is(bad.json.class, 'badModules', bad.text);
      assert.is(bad.json.status, 'error');
    }
    const sixteen = await t.post(path, ann.token, { ...base, modules: Array.from({ length: 16 }, (_, i) => mod(`m${i}`)) });
    assert.is.not(sixteen.json.class, 'badModules', sixteen.text);
    assert.is.not(sixteen.status, 413);
    const fieldless = await t.post(path, ann.token, { ...base, modules: [{ name: 'a' }] });
    assert.is(fieldless.json.class, 'hostRequest', 'an object without its source is malformed, not badModules');
  }
});

test('the turn body takes intent, fields, spell and argument only: `if` and `try` are unknown fields', async () => {
  const iffed = await cast('lamp', 'light', { if: [{ object: 'lamp', version: 1 }] });
  assert.is(iffed.status, 400, iffed.text);
  assert.is(iffed.json.class, 'hostRequest');
  assert.match(iffed.json.message, /`if` is not a field this route takes/);
  const tried = await cast('lamp', 'light', { try: true });
  assert.is(tried.status, 400);
  assert.match(tried.json.message, /`try` is not a field/);
  const two = await cast('lamp', 'fill', { fields: { measures: 1 }, spell: 'fill measures=1' });
  assert.is(two.json.class, 'hostRequest', 'one of fields, spell, argument');
});

test('badSpell clauses: the earlier list kept, every other clause `unclear`', async () => {
  const cases: [string, string, Record<string, unknown>, string][] = [
    ['lamp', 'fill', { fields: { jugs: 3 } }, 'unknownField'],
    ['lamp', 'receive', { spell: 'fill measures=3 measures=4' }, 'duplicateField'],
    ['lamp', 'fill', { fields: { measures: 12 } }, 'badValue'],
    ['lamp', 'fill', { spell: 'light' }, 'noAction'],
    ['lamp', 'receive', { spell: 'notice-board: light' }, 'otherCard'],
    ['lamp', 'receive', { spell: 'give to={x=1' }, 'unclosedBlock'],
    ['lamp', 'give', { fields: { note: 'hi' } }, 'unclear'],
    ['lamp', 'receive', { spell: 'give to=square note="no end' }, 'unclear'],
    ['lamp', 'receive', { spell: 'light\ndouse' }, 'unclear'],
    ['lamp', 'receive', { spell: 'make kind=dragon' }, 'unclear'],
  ];
  for (const [object, method, body, clause] of cases) {
    const r = await cast(object, method, body);
    assert.is(r.status, 200, r.text);
    assert.is(r.json.class, 'badSpell', r.text);
    assert.is(r.json.clause, clause, r.text);
    assert.type(r.json.reason, 'string');
  }
  // The receipt read back names the same clause.
  const r = await cast('lamp', 'give', { fields: { note: 'hi' } });
  const back = await t.get(`/AGENTS.md/receipt/${r.json.receipt.slug}`, ann.token);
  assert.is(back.json.class, 'badSpell', back.text);
  assert.is(back.json.clause, 'unclear', back.text);
  assert.match(back.json.reason, /^missingField: /, 'the kernel\u2019s clause stays readable in the reason');
});

test('cardRefused reads as lawRefused; duplicateIdentity is the same intent with another request', async () => {
  const first = await cast('lamp', 'light', {});
  assert.is(first.json.status, 'done', first.text);
  const again = await cast('lamp', 'light', {});
  assert.is(again.json.class, 'lawRefused', again.text);
  assert.is(again.json.reason, 'refused lit: the lamp is already lit');
  const whole = await t.get(`/AGENTS.md/receipt/${again.json.receipt.slug}?full=1`, ann.token);
  assert.is(whole.json.class, 'lawRefused');
  assert.is(whole.json.entry.receipt.class, 'lawRefused', 'the whole entry too');
  assert.not.match(whole.text, /cardRefused/);
  await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'same', fields: { measures: 0 } });
  const dup = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'same', fields: { measures: 1 } });
  assert.is(dup.json.class, 'duplicateIdentity', dup.text);
});

test('the MCP tools answer the earlier names too', async () => {
  const tool = t.town.mcp.town.tools.get('turn');
  assert.ok(tool, 'turn is a tool');
  const caller = { ...identityOf(t.town.config.host, 'ann'), credentialHash: 'x', via: 'bearer' as const };
  const r = await callRoute(
    tool!,
    t.town.mcp.town.handler('turn'),
    { object: 'lamp', method: 'receive', intent: intent(), spell: 'light\ndouse' },
    { caller, requestId: 'r', address: '127.0.0.1' },
    { error: () => {} },
  );
  assert.is(r.json.class, 'badSpell', r.text);
  assert.is(r.json.clause, 'unclear', r.text);
  const tried = await callRoute(
    tool!,
    t.town.mcp.town.handler('turn'),
    { object: 'lamp', method: 'light', intent: intent(), try: true },
    { caller, requestId: 'r', address: '127.0.0.1' },
    { error: () => {} },
  );
  assert.is(tried.error, true, 'no `try` in a turn here either');
});

test.run();
