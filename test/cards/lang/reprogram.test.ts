/** Reprogramming: the same shape carries over, another shape needs migrate, a wrong migrate is refused. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkReprogram, reprogram } from '../../../src/cards/compile.js';
import { bool, natural, record } from '../../../src/contract/typed.js';
import { budget, build, ctx, plain } from './helpers.js';

const v1 = build(
  'type Lamp:\n  lit: Boolean\n\ndef initial() -> Lamp:\n  return Lamp { lit: false }\n\nspell light(self: Lamp) -> Lamp:\n  return self { lit: true }\n',
);
const same = build(
  'type Torch:\n  lit: Boolean\n\ndef initial() -> Torch:\n  return Torch { lit: true }\n\nspell douse(self: Torch) -> Torch:\n  return self { lit: false }\n',
);
const noMigrate = build(
  'type Lamp:\n  lit: Boolean\n  fuel: Natural\n\ndef initial() -> Lamp:\n  return Lamp { lit: false, fuel: 3 }\n\nspell light(self: Lamp) -> Lamp:\n  return self { lit: true }\n',
);
const v2Src = `type Old:
  lit: Boolean

type Lamp:
  lit: Boolean
  fuel: Natural 0..10

def initial() -> Lamp:
  return Lamp { lit: false, fuel: 3 }

def migrate(old: Old) -> Lamp:
  if old.lit:
    return Lamp { lit: true, fuel: 1 }
  return Lamp { lit: false, fuel: 5 }

spell light(self: Lamp) -> Lamp:
  return self { lit: true }
`;
const v2 = build(v2Src);
const wrongOld = build(v2Src.replace('type Old:\n  lit: Boolean', 'type Old:\n  on: Boolean').replace(/old\.lit/g, 'old.on'));
const badMigrate = build(v2Src.replace('return Lamp { lit: false, fuel: 5 }', 'return Lamp { lit: false, fuel: 50 }'));

test('the same shape under other names needs no migration', () => {
  assert.equal(checkReprogram(v1, same), { ok: true, migrate: false });
  const r = reprogram(v1, same, record({ lit: bool(true) }), budget, ctx());
  assert.ok(r.ok && !r.migrated && plain(r.state as never) !== undefined);
});

test('another shape without migrate is refused at stateType, with the migrate to write', () => {
  const c = checkReprogram(v1, noMigrate);
  assert.ok(!c.ok);
  if (!c.ok) {
    const d = c.diagnostics[0]!;
    assert.is(d.stage, 'stateType');
    assert.is(d.line, 5);
    assert.ok(d.message.includes('the card holds Lamp { lit: Boolean }, but the new program keeps Lamp { lit: Boolean, fuel: Natural }'), d.message);
    assert.is(d.hint, 'type OldState:\n  lit: Boolean\n\ndef migrate(old: OldState) -> Lamp:\n  return …');
  }
  const r = reprogram(v1, noMigrate, record({ lit: bool(true) }), budget);
  assert.ok(!r.ok && r.clause === 'stateType');
});

test('migrate carries the state over', () => {
  assert.equal(checkReprogram(v1, v2), { ok: true, migrate: true });
  const r = reprogram(v1, v2, record({ lit: bool(true) }), budget);
  assert.ok(r.ok);
  if (r.ok) {
    assert.ok(r.migrated);
    assert.equal(r.state, record({ lit: bool(true), fuel: natural(1) }));
    assert.ok(r.usage.ticks > 0);
  }
  // The kernel may also run it as an entry.
  const e = v2.runEntry('migrate', [record({ lit: bool(false) })], budget);
  assert.ok(e.ok && plain(e.result) !== undefined);
  assert.ok(v2.entries.includes('migrate'));
});

test('a migrate that takes another old shape is refused at migration', () => {
  const c = checkReprogram(v1, wrongOld);
  assert.ok(!c.ok && c.diagnostics[0]!.stage === 'migration' && c.diagnostics[0]!.line === 11);
  if (!c.ok) assert.ok(c.diagnostics[0]!.message.includes('migrate takes Old, but the card holds Lamp { lit: Boolean }'));
});

test('a migrate that builds a state outside its bounds is refused at migration', () => {
  const r = reprogram(v1, badMigrate, record({ lit: bool(false) }), budget);
  assert.ok(!r.ok && r.clause === 'migration' && r.reason.includes('fuel: 50 is above 10'));
  const c = reprogram(v1, v2, record({ lit: natural(1) }), budget);
  assert.ok(!c.ok && c.clause === 'migration');
});

test.run();
