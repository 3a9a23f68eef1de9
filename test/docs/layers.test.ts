/**
 * The top-level folders of `src` are layers, and imports only go down them: a module imports
 * from its own layer or from layers below it, never from one above (docs/architecture.md,
 * "Layers", states the same order). This keeps each layer readable and testable without the
 * ones above it. The test reads every import of every module with TypeScript's own scanner
 * (static, dynamic `import()` and the `new URL('./x.js', import.meta.url)` that names a worker's
 * file), and also finds import cycles between files: a cycle makes load order matter and
 * hides which module is the leaf. The card language's checker (`src/cards/lang/check/`) is one
 * recursive algorithm over mutually recursive forms, so its files may call each other.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createScanner, SyntaxKind } from 'typescript/unstable/ast';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { root } from './tree.js';

/**
 * The layers, bottom to top. A layer is a folder of `src` or a file at its root; the root
 * files named on one line share a layer.
 */
export const layers: readonly (readonly string[])[] = [
  ['contract'],
  ['stores'],
  ['cards'],
  ['events'],
  ['projections'],
  ['commands'],
  ['identity'],
  ['queries'],
  ['repository'],
  ['projectors'],
  ['archive'],
  ['operations'],
  ['pages'],
  ['http'],
  ['mcp'],
  ['config.ts', 'town', 'town.ts'],
  ['cli'],
  ['main.ts'],
];

/** Where cycles between files are allowed (see the header). */
const cyclesAllowed = 'src/cards/lang/check/';

/** The rank of a layer name in `layers`; a name not listed has none. */
function rankOf(layer: string): number | undefined {
  const i = layers.findIndex((names) => names.includes(layer));
  return i < 0 ? undefined : i;
}

/** The layer of a module: its top folder under `src`, or its own name at the root. */
export function layerOf(file: string): string {
  return file.slice('src/'.length).split('/')[0];
}

function walk(dir: string, out: string[]): void {
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const name = `${dir}/${entry.name}`;
    if (entry.isDirectory()) walk(name, out);
    else if (entry.isFile() && name.endsWith('.ts')) out.push(name);
  }
}

/** Tokens after which a `/` divides; after any other token it starts a regular expression. */
const endsOperand = new Set<SyntaxKind>([
  SyntaxKind.Identifier,
  SyntaxKind.NumericLiteral,
  SyntaxKind.BigIntLiteral,
  SyntaxKind.StringLiteral,
  SyntaxKind.NoSubstitutionTemplateLiteral,
  SyntaxKind.TemplateTail,
  SyntaxKind.RegularExpressionLiteral,
  SyntaxKind.CloseParenToken,
  SyntaxKind.CloseBracketToken,
  SyntaxKind.CloseBraceToken,
  SyntaxKind.ThisKeyword,
  SyntaxKind.SuperKeyword,
  SyntaxKind.TrueKeyword,
  SyntaxKind.FalseKeyword,
  SyntaxKind.NullKeyword,
]);

/**
 * The tokens of `text` as TypeScript's scanner reads them, comments left out. The scanner alone
 * cannot tell a template's `}` from a block's or a regular expression from a division, so the
 * walk keeps the braces that opened template parts and reads a `/` by the token before it (as
 * TypeScript's own `preProcessFile` does).
 */
function tokens(text: string): { kind: SyntaxKind; value: string }[] {
  const scanner = createScanner(true, undefined, text);
  const braces: ('block' | 'template')[] = [];
  const out: { kind: SyntaxKind; value: string }[] = [];
  let kind = scanner.scan();
  while (kind !== SyntaxKind.EndOfFile) {
    const before = out[out.length - 1]?.kind;
    if ((kind === SyntaxKind.SlashToken || kind === SyntaxKind.SlashEqualsToken) && (before === undefined || !endsOperand.has(before))) {
      kind = scanner.reScanSlashToken();
    } else if (kind === SyntaxKind.OpenBraceToken) {
      braces.push('block');
    } else if (kind === SyntaxKind.TemplateHead) {
      braces.push('template');
    } else if (kind === SyntaxKind.CloseBraceToken) {
      if (braces.pop() === 'template') {
        kind = scanner.reScanTemplateToken(false);
        if (kind === SyntaxKind.TemplateMiddle) braces.push('template');
      }
    }
    out.push({ kind, value: scanner.getTokenValue() });
    kind = scanner.scan();
  }
  return out;
}

/**
 * Every module specifier `text` names: `import … from`, `import '…'`, `export … from`, `import('…')`
 * (a dynamic import or an import type) and the `new URL('./x.js', import.meta.url)` that names a
 * worker's file. Read with TypeScript's scanner (`typescript/unstable/ast`): the installed
 * TypeScript is the native compiler, whose package no longer carries `preProcessFile`, and its
 * scanner is the one `preProcessFile` was built on.
 */
export function specifiers(text: string): string[] {
  const t = tokens(text);
  const is = (i: number, kind: SyntaxKind) => t[i]?.kind === kind;
  const found: string[] = [];
  /** From `i`, the string after the clause's `from`, if the clause ends in one. */
  const fromClause = (i: number): string | undefined => {
    for (let j = i; j < t.length && !is(j, SyntaxKind.SemicolonToken); j++) {
      if (is(j, SyntaxKind.FromKeyword) && is(j + 1, SyntaxKind.StringLiteral)) return t[j + 1].value;
      if (is(j, SyntaxKind.OpenParenToken) || is(j, SyntaxKind.EqualsToken)) return undefined;
    }
    return undefined;
  };
  for (let i = 0; i < t.length; i++) {
    if (is(i, SyntaxKind.ImportKeyword)) {
      if (is(i + 1, SyntaxKind.StringLiteral)) found.push(t[i + 1].value);
      else if (is(i + 1, SyntaxKind.OpenParenToken) && is(i + 2, SyntaxKind.StringLiteral)) found.push(t[i + 2].value);
      else if (!is(i + 1, SyntaxKind.DotToken) && !is(i - 1, SyntaxKind.DotToken)) {
        const from = fromClause(i + 1);
        if (from !== undefined) found.push(from);
      }
    } else if (is(i, SyntaxKind.ExportKeyword)) {
      const clause = is(i + 1, SyntaxKind.TypeKeyword) ? i + 2 : i + 1;
      if (is(clause, SyntaxKind.OpenBraceToken) || is(clause, SyntaxKind.AsteriskToken)) {
        const from = fromClause(clause);
        if (from !== undefined) found.push(from);
      }
    } else if (
      is(i, SyntaxKind.NewKeyword) &&
      t[i + 1]?.value === 'URL' &&
      is(i + 2, SyntaxKind.OpenParenToken) &&
      is(i + 3, SyntaxKind.StringLiteral) &&
      is(i + 4, SyntaxKind.CommaToken) &&
      is(i + 5, SyntaxKind.ImportKeyword) &&
      t[i + 7]?.value === 'meta'
    ) {
      found.push(t[i + 3].value);
    }
  }
  return found;
}

/** The project file a relative specifier names from `from`, or nothing for a package. */
export function resolve(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  return joined.replace(/\.js$/, '.ts');
}

/** Each module of `src` with the project files it imports. */
export function importGraph(): Map<string, string[]> {
  const files: string[] = [];
  walk('src', files);
  const graph = new Map<string, string[]>();
  for (const file of files.sort()) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    const targets = specifiers(text)
      .map((s) => resolve(file, s))
      .filter((t): t is string => t?.startsWith('src/') === true);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The imports of `graph` that go up the layers, or into a layer the order does not name. */
export function upward(graph: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    const from = rankOf(layerOf(file));
    if (from === undefined) {
      out.push(`${file}: its layer ${layerOf(file)} is not in the order`);
      continue;
    }
    for (const target of targets) {
      const to = rankOf(layerOf(target));
      if (to === undefined) out.push(`${file} -> ${target}: layer ${layerOf(target)} is not in the order`);
      else if (to > from) out.push(`${file} -> ${target} (${layerOf(file)} imports ${layerOf(target)}, above it)`);
    }
  }
  return out;
}

/**
 * One cycle per strongly tied group of files, found by a depth-first walk: an edge back to a
 * file still on the walk's path closes a cycle. Edges between files of the allowed folder are
 * left out.
 */
export function cycles(graph: Map<string, string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const found: string[][] = [];
  const edges = (file: string) => (graph.get(file) ?? []).filter((t) => graph.has(t) && !(file.startsWith(cyclesAllowed) && t.startsWith(cyclesAllowed)));
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const target of edges(file)) {
      const seen = state.get(target);
      if (seen === 'open') found.push([...stack.slice(stack.indexOf(target)), target]);
      else if (seen === undefined) visit(target);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

test('the check reads imports, re-exports, types, dynamic imports and worker paths', () => {
  const text = [
    "import { a } from './a.js';",
    "export * from '../b/c.js';",
    "import type { T } from 'koa';",
    "export type { U } from './u.js';",
    "let v: typeof import('./v.js');",
    "const d = await import('./d.js');",
    "new Worker(new URL('./e.js', import.meta.url));",
  ].join('\n');
  assert.equal(specifiers(text), ['./a.js', '../b/c.js', 'koa', './u.js', './v.js', './d.js', './e.js']);
  assert.is(resolve('src/http/handler.ts', '../contract/names.js'), 'src/contract/names.ts');
  assert.is(resolve('src/http/handler.ts', 'koa'), undefined);
});

test('the check finds an import up the layers and a cycle', () => {
  const [low, high] = ['src/contract/names.ts', 'src/http/handler.ts'];
  const [checkA, checkB] = ['src/cards/lang/check/scope.ts', 'src/cards/lang/check/calls.ts'];
  const graph = new Map([
    [low, [high]],
    [high, [low]],
    [checkA, [checkB]],
    [checkB, [checkA]],
  ]);
  assert.equal(upward(graph), [`${low} -> ${high} (contract imports http, above it)`]);
  assert.equal(cycles(graph), [[low, high, low]]);
});

test('every layer of src is in the order', () => {
  const present = fs.readdirSync(path.join(root, 'src')).filter((n) => !n.endsWith('.d.ts'));
  const missing = present.filter((n) => rankOf(n) === undefined);
  assert.equal(missing, [], `layers missing from the order: ${missing.join(', ')}`);
});

test('no module of src imports from a layer above its own', () => {
  const up = upward(importGraph());
  assert.ok(up.length === 0, `imports that go up the layers:\n${up.join('\n')}`);
});

test('no import cycle between the files of src', () => {
  const found = cycles(importGraph());
  assert.ok(found.length === 0, `import cycles:\n${found.map((c) => c.join(' -> ')).join('\n')}`);
});

test('docs/architecture.md states the same order', () => {
  const doc = fs.readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
  const section = doc.split(/^## Layers$/m)[1]?.split(/^## /m)[0] ?? '';
  const stated = [...section.matchAll(/^\d+\. (.+?):/gm)].map((m) => [...m[1].matchAll(/`([^`]+)`/g)].map((n) => n[1]));
  assert.equal(stated, layers, 'the Layers section of docs/architecture.md lists the layers, bottom to top, one a line');
});

test.run();
