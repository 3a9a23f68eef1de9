/**
 * Every example in docs/cards.md runs, with exactly the outputs the page states.
 *   ```card NAME``` a module; ```session NAME``` runs it; ```error NAME``` is its first diagnostic.
 * A session line `> spell field=value` casts (then the law is checked, rules run, wants
 * reported, as a turn would); `> view NAME` shows a view; `> def(args)` runs a def;
 * `> as bob: …` casts as another guest. Output lines name what came back; each stated line
 * must be exactly what the run gave, and a refusal must be stated.
 */
import { showData } from '../../../src/cards/typed-text.js';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../../src/cards/compile.js';
import { sealedLibrary } from '../../../src/cards/library/index.js';
import type { Budget, CallContext, Diagnostic, Program, RunRefusal } from '../../../src/cards/program.js';
import { label, natural, record, type TypedData } from '../../../src/contract/typed.js';
import { fromSpell } from '../../../src/cards/kernel/fields.js';
import { defaultOptions } from '../../../src/cards/kernel/options.js';
import { clauseBudget } from '../../../src/cards/lang/runner.js';
import { parseSpell } from '../../../src/cards/kernel/spell.js';
import type { Refusal } from '../../../src/cards/kernel/refusal.js';

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!dir.endsWith('/') && dir !== dirname(dir)) {
    try {
      readFileSync(join(dir, 'docs', 'cards.md'));
      return dir;
    } catch {
      dir = dirname(dir);
    }
  }
  throw new Error('docs/cards.md not found');
}

const doc = readFileSync(join(repoRoot(), 'docs', 'cards.md'), 'utf8');
const blocks = [...doc.matchAll(/```(card|session|error) (\w+)\n([\s\S]*?)```/g)].map((m) => ({ kind: m[1]!, name: m[2]!, body: m[3]! }));
// The host's budget for one turn, as the page states it (and as `budget` states it below).
const budget: Budget = defaultOptions.budget;
const guest = (name: string) => `guest:town:${name}`;

function refusalLine(r: RunRefusal | Refusal | { class: 'lawRefused'; clause: string; reading: string }): string {
  if ((r.class === 'cardRefused' || r.class === 'lawRefused') && 'reading' in r) return `refused: ${r.class} ${r.clause}: ${r.reading}`;
  if ('clause' in r && r.clause) return `refused: ${r.class} ${r.clause} ${r.reason}`;
  return `refused: ${r.class} ${r.reason}`;
}

/** A filled-in template read as the host reads it (the kernel's spell parser and form), card ids as they are. */
function readSpell(text: string, p: Program): { method: string; args: TypedData } | Refusal {
  const parsed = parseSpell(text);
  if (!parsed.ok) return { class: 'badSpell', clause: parsed.fault.clause, reason: parsed.fault.reason };
  const spell = parsed.spell;
  if (spell.kind !== 'cast') throw new Error(`the page casts one spell at a time: ${text}`);
  const m = p.methods.find((x) => x.name === spell.method && x.kind === 'spell');
  if (!m?.form) throw new Error(`no spell with a form named ${spell.method}`);
  const r = fromSpell(m.form, spell.items, m.template ?? m.name, () => undefined);
  return r.ok ? { method: m.name, args: r.args } : r.refusal;
}

/** A def's arguments as the page writes them: naturals, "text", true/false, [lists], { records }. */
function parseArgs(src: string): TypedData[] {
  let i = 0;
  const ws = () => {
    while (src[i] === ' ') i++;
  };
  const value = (): TypedData => {
    ws();
    const c = src[i];
    if (c === '"') {
      const m = /^"(?:[^"\\]|\\.)*"/.exec(src.slice(i))!;
      i += m[0].length;
      return label(JSON.parse(m[0]) as string);
    }
    if (c === '[') {
      i++;
      const items: TypedData[] = [];
      ws();
      while (src[i] !== ']') {
        items.push(value());
        ws();
        if (src[i] === ',') i++;
        ws();
      }
      i++;
      return { tag: 'list', items };
    }
    if (c === '{') {
      i++;
      const fields: [string, TypedData][] = [];
      ws();
      while (src[i] !== '}') {
        const m = /^(\w+)\s*:/.exec(src.slice(i))!;
        i += m[0].length;
        fields.push([m[1]!, value()]);
        ws();
        if (src[i] === ',') i++;
        ws();
      }
      i++;
      return record(fields);
    }
    const m = /^(\d+|true|false)/.exec(src.slice(i));
    if (!m) throw new Error(`cannot read ${src.slice(i)}`);
    i += m[0].length;
    if (m[0] === 'true' || m[0] === 'false') return { tag: 'boolean', value: m[0] === 'true' };
    return natural(BigInt(m[0]));
  };
  const out: TypedData[] = [];
  ws();
  while (i < src.length) {
    out.push(value());
    ws();
    if (src[i] === ',') i++;
    ws();
  }
  return out;
}

/** Runs one `>` line and returns what came back, one output line each. */
function act(p: Program, line: string, st: { state: TypedData }): string[] {
  let caller = guest('ann');
  let text = line;
  const as = /^as (\w+):\s*(.*)$/.exec(line);
  if (as) {
    caller = guest(as[1]!);
    text = as[2]!;
  }
  const ctx: CallContext = { caller, owner: guest('ann'), self: 'card-1', now: 1_000 };
  const out: string[] = [];
  const view = /^view (\w+)$/.exec(text);
  if (view) {
    const r = p.view(view[1]!, st.state, caller, budget);
    return r.ok ? [`result: ${showData(r.result)}`] : [refusalLine(r.refusal)];
  }
  const entry = /^(\w+)\((.*)\)$/.exec(text);
  if (entry) {
    const r = p.runEntry(entry[1]!, parseArgs(entry[2]!), budget);
    return r.ok ? [`result: ${showData(r.result)}`] : [refusalLine(r.refusal)];
  }
  const read = readSpell(text, p);
  if ('class' in read) return [refusalLine(read)];
  const r = p.call(read.method, st.state, read.args, ctx, budget);
  if (!r.ok) return [refusalLine(r.refusal)];
  const broken = p.checkLaw(st.state, r.state, ctx);
  if (broken) return [refusalLine({ class: 'lawRefused', clause: broken.name, reading: broken.reading })];
  const rules = p.runRules(st.state, r.state, ctx, budget);
  if (!rules.ok) return [refusalLine(rules.refusal)];
  out.push(`state: ${showData(r.state)}`);
  for (const s of r.says) out.push(`says: ${s}`);
  for (const s of r.sends) out.push(`sends: ${s.to}.${s.method} ${showData(s.argument)}`);
  for (const m of r.makes) out.push(`makes: ${m.kind}${m.seed ? ' ' + showData(m.seed) : ''}`);
  if (!(r.result.tag === 'record' && r.result.fields.length === 0)) out.push(`result: ${showData(r.result)}`);
  for (const s of rules.says) out.push(`rules: ${s}`);
  const wants = p.openWants(r.state, ctx);
  out.push(`wants: ${wants.length ? wants.join(', ') : 'none'}`);
  st.state = r.state;
  return out;
}

const programs = new Map<string, Program | Diagnostic[]>();
for (const b of blocks.filter((x) => x.kind === 'card')) {
  const r = compile({ modules: [{ name: b.name, source: b.body }] }, sealedLibrary());
  programs.set(b.name, r.ok ? r.program : r.diagnostics);
}

test('the page has examples of every kind', () => {
  assert.ok(blocks.filter((b) => b.kind === 'card').length >= 8);
  assert.ok(blocks.filter((b) => b.kind === 'session').length >= 6);
  assert.ok(blocks.filter((b) => b.kind === 'error').length >= 2);
  for (const b of blocks.filter((x) => x.kind !== 'card')) assert.ok(programs.has(b.name), `a card named ${b.name} for the ${b.kind}`);
});

for (const b of blocks.filter((x) => x.kind === 'card')) {
  const hasError = blocks.some((x) => x.kind === 'error' && x.name === b.name);
  test(`card ${b.name} ${hasError ? 'is refused as the page says' : 'compiles'}`, () => {
    const p = programs.get(b.name)!;
    if (hasError) assert.ok(Array.isArray(p), `${b.name} should not compile`);
    else if (Array.isArray(p)) assert.unreachable(`${b.name} does not compile: ${JSON.stringify(p)}`);
  });
}

for (const b of blocks.filter((x) => x.kind === 'error')) {
  test(`error ${b.name}`, () => {
    const d = programs.get(b.name) as Diagnostic[];
    const first = d[0]!;
    assert.is(`${first.stage} ${first.line}:${first.column} ${first.message}`, b.body.trim());
  });
}

blocks
  .filter((x) => x.kind === 'session')
  .forEach((b, n) => {
    test(`session ${n + 1} on ${b.name}`, () => {
      const p = programs.get(b.name) as Program;
      assert.ok(!Array.isArray(p));
      const init = p.card ? p.initial(budget, { caller: guest('ann'), owner: guest('ann'), self: 'card-1', now: 1_000 }) : undefined;
      const st = { state: init?.ok ? init.state : record([]) };
      let outputs: string[] | undefined;
      let stated: string[] = [];
      const settle = (line: string) => {
        if (!outputs) return;
        const refusal = outputs.find((o) => o.startsWith('refused:'));
        if (refusal) assert.ok(stated.includes(refusal), `${line}: the page must state the refusal "${refusal}"`);
        for (const s of stated) {
          const kind = s.slice(0, s.indexOf(':'));
          assert.ok(
            outputs.includes(s),
            `${line}\n  page says:  ${s}\n  run gave:   ${outputs.filter((o) => o.startsWith(kind)).join(' | ') || '(nothing of that kind)'}`,
          );
        }
      };
      let current = '';
      for (const raw of b.body.split('\n')) {
        const line = raw.trim();
        if (!line) continue;
        if (line.startsWith('> ')) {
          settle(current);
          current = line;
          outputs = act(p, line.slice(2), st);
          stated = [];
        } else stated.push(line);
      }
      settle(current);
    });
  });

test('the page states the budgets of the host, as the kernel has them', () => {
  const n = (x: number) => x.toLocaleString('en-US');
  const b = defaultOptions.budget;
  assert.ok(doc.includes(`| a turn (all the acts of a plan together) | ${n(b.ticks)} | ${n(b.heap)} | ${n(b.bytes)} |`));
  assert.ok(doc.includes(`| a law clause, want or rule, each | ${n(clauseBudget.ticks)} | ${n(clauseBudget.heap)} | — |`));
  assert.ok(doc.includes(`${n(b.ticks)} ticks, ${n(b.heap)} heap and ${n(b.bytes)} bytes`));
  const a = defaultOptions.allowances;
  assert.ok(doc.includes(`${a.depth} deep, ${n(a.work)}\nticks and ${n(a.storage)} bytes`));
});

test.run();
