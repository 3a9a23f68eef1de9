/** compile(): content ids, the cache, packages of several modules, `kind`, `entry`, law text, bad input. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CID } from 'multiformats/cid';
import { cidOf, compile, compileCount, packageCid } from '../../../src/cards/compile.js';
import { sealedLibrary } from '../../../src/cards/library/index.js';
import type { CompileInput } from '../../../src/cards/program.js';
import { budget, ctx, plain } from './helpers.js';

const counter = 'type C:\n  n: Natural\n\ndef initial() -> C:\n  return C { n: 0 }\n\nspell bump(self: C) -> C:\n  return self { n: self.n + 1 }\n';

test('the pin is a CIDv1 (dag-cbor, sha2-256) of the package, stable and sensitive to every part', () => {
  const input: CompileInput = { modules: [{ name: 'counter', source: counter }] };
  const cid = packageCid(input);
  const parsed = CID.parse(cid);
  assert.is(parsed.version, 1);
  assert.is(parsed.code, 0x71);
  assert.is(parsed.multihash.code, 0x12);
  assert.is(packageCid({ modules: [{ name: 'counter', source: counter }] }), cid);
  assert.is.not(packageCid({ modules: [{ name: 'counter', source: counter + '\n' }] }), cid);
  assert.is.not(packageCid({ modules: [{ name: 'counter2', source: counter }] }), cid);
  assert.is.not(packageCid({ ...input, law: 'a: true -- "x"' }), cid);
  const r = compile(input, sealedLibrary());
  assert.ok(r.ok && r.program.cid === cid);
  assert.is(cidOf({ a: 1 }), cidOf({ a: 1 }));
});

test('the same package compiles once; the cache answers after', () => {
  const input: CompileInput = { modules: [{ name: 'cached', source: counter }] };
  const before = compileCount();
  const a = compile(input, sealedLibrary());
  const b = compile({ modules: [{ name: 'cached', source: counter }] }, sealedLibrary());
  assert.is(compileCount(), before + 1);
  assert.ok(a.ok && b.ok && a.program === b.program);
  // A copy of the library is the same library (same content); a library that differs is another compile.
  compile(input, { modules: new Map(sealedLibrary().modules) });
  assert.is(compileCount(), before + 1);
  const other = { modules: new Map(sealedLibrary().modules) };
  other.modules.set('extra', { name: 'extra', source: 'def x() -> Natural:\n  return 1\n' });
  compile(input, other);
  assert.is(compileCount(), before + 2);
});

test('a package of several modules; kind picks the module that programs the card', () => {
  const helper = 'def step() -> Natural:\n  return 5\n';
  const main = 'use helper\n' + counter.replace('self.n + 1', 'self.n + step()');
  const r = compile(
    {
      modules: [
        { name: 'helper', source: helper },
        { name: 'main', source: main },
      ],
      kind: 'main',
    },
    sealedLibrary(),
  );
  assert.ok(r.ok);
  if (r.ok) {
    const s = r.program.initial(budget, ctx());
    assert.ok(s.ok);
    if (s.ok) {
      const out = r.program.call('bump', s.state, { tag: 'record', fields: [] }, ctx(), budget);
      assert.ok(out.ok && (plain(out.state) as { n: number }).n === 5);
    }
  }
  const noKind = compile(
    {
      modules: [
        { name: 'helper', source: helper },
        { name: 'main', source: main },
      ],
      kind: 'nope',
    },
    sealedLibrary(),
  );
  assert.ok(!noKind.ok && noKind.diagnostics[0]!.message.includes('no module named nope'));
  const twice = compile(
    {
      modules: [
        { name: 'a', source: helper },
        { name: 'a', source: helper },
      ],
    },
    sealedLibrary(),
  );
  assert.ok(!twice.ok && twice.diagnostics[0]!.message.includes('two modules are named a'));
});

test('a package module shadows a library module of the same name', () => {
  const r = compile(
    {
      modules: [
        { name: 'main', source: 'use core\ndef f() -> Natural:\n  return core.seven()\n' },
        { name: 'core', source: 'def seven() -> Natural:\n  return 7\n' },
      ],
    },
    sealedLibrary(),
  );
  assert.ok(r.ok);
  if (r.ok) {
    const out = r.program.runEntry('f', [], budget);
    assert.ok(out.ok && plain(out.result) === 7);
  }
});

test('entry names the def that makes the first state', () => {
  const r = compile({ modules: [{ name: 'e', source: counter.replace('def initial()', 'def start()') }], entry: 'start' }, sealedLibrary());
  assert.ok(r.ok && r.program.card);
});

test("law text beside the package joins the module's law", () => {
  const r = compile({ modules: [{ name: 'lawful', source: counter }], law: 'small: self.n < 2 -- "it counts to one"' }, sealedLibrary());
  assert.ok(r.ok);
  if (r.ok) {
    assert.equal(r.program.law, [{ name: 'small', reading: 'it counts to one', text: 'small: self.n < 2 -- "it counts to one"' }]);
    assert.is(r.program.checkLaw(undefined, { tag: 'record', fields: [{ name: 'n', value: { tag: 'natural', value: 2 } }] }, ctx())?.name, 'small');
  }
});

test('bad input is a diagnostic, never a throw', () => {
  for (const bad of [null, {}, { modules: 'x' }, { modules: [{ name: 1, source: '' }] }, { modules: [] }, { modules: [{ name: 'a', source: 'x' }], law: 3 }]) {
    const r = compile(bad as unknown as CompileInput, sealedLibrary());
    assert.ok(!r.ok, JSON.stringify(bad));
  }
  const huge = compile({ modules: [{ name: 'big', source: 'def f() -> Natural:\n  return 1\n' + '#'.repeat(1 << 21) }] }, sealedLibrary());
  assert.ok(!huge.ok && huge.diagnostics[0]!.stage === 'parse');
});

test('a module of helpers alone compiles and programs no card', () => {
  const r = compile({ modules: [{ name: 'helpers', source: 'def double(n: Natural) -> Natural:\n  return n * 2\n' }] }, sealedLibrary());
  assert.ok(r.ok && !r.program.card && r.program.stateType === 'none');
});

test.run();
