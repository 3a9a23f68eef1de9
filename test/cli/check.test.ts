/**
 * `card check` and `card forms` as a child process: every sealed library card passes; broken
 * cards fail with `file:line:col stage: message` and exit 1; inputs from standard input, a
 * directory and several files; a missing file is exit 2 and says so. The many small refusals of
 * a command line run in this process (the same runCard), the rest as a child process.
 */
import path from 'node:path';
import { isRight } from 'fp-ts/lib/Either.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decide } from '../../src/cards/kernel/decide.js';
import { libraryPrograms } from '../../src/cards/kernel/library.js';
import { actionsOf, formsOf } from '../../src/cards/kernel/reading.js';
import { blankWorld } from '../../src/cards/kernel/world.js';
import type { Diagnostic, Module } from '../../src/cards/program.js';
import { limits } from '../../src/contract/limits.js';
import { CheckReplyC, type CheckReply } from '../../src/queries/check-reply.js';
import { broken, card, cli, escapeRe, inProcess, libraryCards, tempCards } from './support.js';

const programs = libraryPrograms();

/** What the kernel says of these modules, in this process: what the command line must print. */
function kernelDiagnostics(modules: Module[]): Diagnostic[] {
  const o = decide(blankWorld(), { kind: 'check', modules }, 0, programs);
  if (o.kind !== 'checked') throw new Error(`check decided ${o.kind}`);
  return o.diagnostics;
}

function decodeCheck(stdout: string): CheckReply {
  const r = CheckReplyC.decode(JSON.parse(stdout));
  if (!isRight(r)) throw new Error(`not a check reply: ${stdout}`);
  return r.right;
}

const shown = (file: string, d: Diagnostic) => `${file}:${d.line}:${d.column} ${d.stage}: ${d.message}`;

test('every sealed library card checks: exit 0 and one "ok" line; --json says ok with no diagnostics', async () => {
  const [runs, json] = await Promise.all([
    Promise.all(libraryCards.map(async (c) => ({ c, text: await card('check', c.file) }))),
    card('check', 'src/cards/library/lamp.card', '--json'),
  ]);
  for (const { c, text } of runs) {
    assert.is(text.code, 0, `${c.file}: ${text.stdout}${text.stderr}`);
    assert.equal(text.lines, [`${c.file}: ok`]);
    assert.is(text.stderr, '');
  }
  assert.is(json.code, 0);
  assert.equal(decodeCheck(json.stdout), { status: 'checked', ok: true, diagnostics: [] });
});

test('forms of every library card: the templates and forms the kernel derives for GET source', async () => {
  const runs = await Promise.all(libraryCards.map(async (c) => ({ c, r: await card('forms', c.file, '--json') })));
  let templates = 0;
  for (const { c, r } of runs) {
    assert.is(r.code, 0, `${c.file}: ${r.stderr}`);
    const got = JSON.parse(r.stdout) as { _actions: Record<string, string>; forms: unknown };
    const loaded = programs.load({ kind: c.name, modules: [{ name: c.name, source: programs.kind(c.name)?.modules[0]?.source ?? '' }] });
    if (c.name === 'core') {
      // core programs no card: it has no spells, so nothing to list.
      assert.equal(got, { _actions: {}, forms: {} });
      continue;
    }
    assert.ok(loaded.ok, c.name);
    if (!loaded.ok) continue;
    assert.equal(got._actions, actionsOf(loaded.program));
    assert.equal(got.forms, formsOf(loaded.program));
    templates += Object.keys(got._actions).length;
  }
  assert.ok(templates >= 10, 'the library offers spells with templates');
});

test('forms as text: each template, then each spell with its fields and bounds', async () => {
  const r = await card('forms', 'src/cards/library/lamp.card');
  assert.is(r.code, 0);
  assert.ok(r.lines.includes('_actions:'));
  assert.ok(r.lines.includes('  fill: fill measures=<natural 0..9>'), r.stdout);
  assert.ok(r.lines.includes('  light: light'));
  const forms = r.lines.indexOf('forms:');
  assert.ok(forms > 0);
  assert.ok(r.lines.slice(forms).includes('    measures <natural 0..9>'), r.stdout);
  assert.ok(r.lines.slice(forms).includes('    note <text 0..80> (optional)'), r.stdout);
});

test('broken cards: file:line:col stage: message, the hint under it, exit 1', async () => {
  const t = tempCards({ 'parse.card': broken.parse, 'type.card': broken.type, 'use.card': broken.use });
  try {
    const cases = [
      { file: 'parse.card', stage: 'parse', line: 2 },
      { file: 'type.card', stage: 'type', line: 5 },
      { file: 'use.card', stage: 'resolve', line: 1 },
    ];
    const runs = await Promise.all(cases.map((c) => card('check', path.join(t.dir, c.file))));
    cases.forEach((c, i) => {
      const given = path.join(t.dir, c.file);
      const r = runs[i]!;
      assert.is(r.code, 1, `${c.file}: ${r.stdout}`);
      assert.is(r.stderr, '');
      const name = c.file.replace('.card', '');
      const d = kernelDiagnostics([{ name, source: broken[name as keyof typeof broken] }]);
      assert.ok(d.length >= 1);
      assert.is(d[0]!.stage, c.stage);
      assert.is(d[0]!.line, c.line);
      const want: string[] = [];
      for (const x of d) {
        want.push(shown(given, x));
        if (x.hint !== undefined) want.push(`  hint: ${x.hint}`);
      }
      assert.equal(r.lines, want);
      assert.match(r.lines[0]!, new RegExp(`^${escapeRe(given)}:${c.line}:\\d+ ${c.stage}: .+`));
    });
    const use = runs[2]!;
    assert.match(use.stdout, /lamps/);
    assert.match(use.stdout, / {2}hint: .*lamp/, 'the hint lists the modules one can use');
  } finally {
    t.cleanup();
  }
});

test('--json: the scratch check reply, with every diagnostic and its span', async () => {
  const t = tempCards({ 'type.card': broken.type });
  try {
    const r = await card('check', path.join(t.dir, 'type.card'), '--json');
    assert.is(r.code, 1);
    const reply = decodeCheck(r.stdout);
    assert.is(reply.ok, false);
    const d = kernelDiagnostics([{ name: 'type', source: broken.type }]);
    assert.equal(
      reply.diagnostics,
      d.map((x) => ({
        stage: x.stage,
        module: x.module,
        line: x.line,
        column: x.column,
        endLine: x.endLine,
        endColumn: x.endColumn,
        message: x.message,
        ...(x.hint ? { hint: x.hint } : {}),
      })),
    );
    assert.is(reply.diagnostics[0]!.module, 'type');
    assert.ok(reply.diagnostics[0]!.endColumn > reply.diagnostics[0]!.column);
  } finally {
    t.cleanup();
  }
});

test('standard input: - reads one module named main, shown as <stdin>', async () => {
  const [typed, good, twice] = await Promise.all([
    cliInput(['check', '-'], broken.type),
    cliInput(['check', '-'], 'use core\n\ndef twice(n: Natural) -> Natural:\n  return n * 2\n'),
    inProcess(['check', '-', '-'], { input: 'x' }),
  ]);
  assert.is(typed.code, 1);
  assert.match(typed.lines[0]!, /^<stdin>:5:\d+ type: /);
  assert.is(good.code, 0, good.stdout);
  assert.equal(good.lines, ['<stdin>: ok']);
  assert.is(twice.code, 2);
  assert.match(twice.stderr, /once/);
});

function cliInput(args: string[], input: string) {
  return cli(['card', ...args], { input });
}

const shop =
  'use helpers\n\ntype Shop:\n  stock: Natural\n\ndef initial() -> Shop:\n  return Shop { stock: helpers.start() }\n\nspell sell(self: Shop, n: Natural 1..5) -> Shop:\n  if n > self.stock:\n    refuse "empty" "not enough in stock"\n  return self { stock: self.stock - n }\n';
const helpers = 'def start() -> Natural:\n  return 4\n';

test('a directory of modules: the one named after the directory leads, the others are its modules', async () => {
  const t = tempCards({
    'shop/shop.card': shop,
    'shop/helpers.card': helpers,
    'bad/bad.card': shop,
    'bad/helpers.card': 'def start() -> Natural:\n  return "four"\n',
    'empty/readme.txt': 'no modules here',
  });
  try {
    const [ok, forms, bad, none, files, alone] = await Promise.all([
      card('check', path.join(t.dir, 'shop')),
      inProcess(['forms', path.join(t.dir, 'shop')]),
      card('check', path.join(t.dir, 'bad')),
      inProcess(['check', path.join(t.dir, 'empty')]),
      // The same package as files on the command line, the leading module first.
      card('check', path.join(t.dir, 'shop', 'shop.card'), path.join(t.dir, 'shop', 'helpers.card')),
      inProcess(['check', path.join(t.dir, 'shop', 'shop.card')]),
    ]);
    assert.is(ok.code, 0, ok.stdout);
    assert.equal(ok.lines, [`${path.join(t.dir, 'shop', 'shop.card')}: ok`, `${path.join(t.dir, 'shop', 'helpers.card')}: ok`]);
    assert.ok(forms.lines.includes('  sell: sell n=<natural 1..5>'), forms.stdout);
    assert.is(bad.code, 1);
    assert.match(
      bad.lines[0]!,
      new RegExp(`^${escapeRe(path.join(t.dir, 'bad', 'helpers.card'))}:2:\\d+ type: `),
      'the diagnostic names the file of the module at fault',
    );
    assert.is(none.code, 2);
    assert.match(none.stderr, /no \.card modules/);
    assert.is(files.code, 0, files.stdout);
    assert.is(alone.code, 1, 'without helpers, `use helpers` does not resolve');
    assert.match(alone.lines[0]!, /:1:\d+ resolve: .*helpers/);
  } finally {
    t.cleanup();
  }
});

test('a missing file, a bad option, no input: exit 2 with a clear word on stderr, nothing on stdout', async () => {
  const [missing, forms, none, bogus, sub] = await Promise.all([
    card('check', 'no/such/lamp.card'),
    inProcess(['forms', 'nothere.card']),
    inProcess(['check']),
    inProcess(['check', 'src/cards/library/lamp.card', '--bogus']),
    inProcess(['frob']),
  ]);
  const proto = await inProcess(['constructor']);
  assert.is(proto.code, 2, 'a subcommand named like an Object property is unknown too');
  assert.is(missing.code, 2);
  assert.is(missing.stdout, '');
  assert.is(missing.stderr.trim(), 'card: cannot read no/such/lamp.card: no such file or directory');
  assert.is(forms.code, 2);
  assert.match(forms.stderr, /cannot read nothere\.card: no such file or directory/);
  assert.is(none.code, 2);
  assert.match(none.stderr, /give a \.card file/);
  assert.match(none.stderr, /card check <file\.card/);
  assert.is(bogus.code, 2);
  assert.match(bogus.stderr, /--bogus/);
  assert.is(sub.code, 2);
  assert.match(sub.stderr, /unknown card subcommand frob/);
});

test('requests the host refuses as malformed: too many modules, a module too large (hostRequest, exit 1)', async () => {
  const many: Record<string, string> = {};
  for (let i = 0; i <= limits.modules; i++) many[`m/m${String(i).padStart(3, '0')}.card`] = `def f${i}() -> Natural:\n  return ${i}\n`;
  const t = tempCards({ ...many, 'big.card': `# ${'x'.repeat(limits.moduleBytes)}\ndef f() -> Natural:\n  return 1\n` });
  try {
    const [r, json, big] = await Promise.all([
      inProcess(['check', path.join(t.dir, 'm')]),
      inProcess(['check', path.join(t.dir, 'm'), '--json']),
      inProcess(['check', path.join(t.dir, 'big.card')]),
    ]);
    assert.is(r.code, 1);
    assert.equal(r.lines, [`hostRequest: at most ${limits.modules} modules`]);
    assert.is(json.code, 1);
    const body = JSON.parse(json.stdout) as Record<string, unknown>;
    assert.equal(body, { status: 'error', class: 'hostRequest', message: `at most ${limits.modules} modules` });
    assert.is(big.code, 1);
    assert.equal(big.lines, [`hostRequest: module big is over ${limits.moduleBytes} bytes`]);
  } finally {
    t.cleanup();
  }
});

test.run();
