/**
 * Every path a comment or a document names exists: `docs/…`, `src/…`, `test/…` and `bench/…`
 * anywhere in the tree's text, and the relative links of the Markdown documents. A path that is
 * a placeholder or a pattern (`src/<x>.ts`, `docs/decisions/*.md`, `src/{a,b}.ts`, `src/…`) names
 * no file and is passed over; a `.js` path under one of those folders names its compiled file,
 * so its `.ts` source is what must exist. A folder and one word without an extension
 * (`docs/s` in "docs/s", `docs/idx`) is not taken for a path; deeper folders are
 * (`src/cards/kernel`). This file's own examples name missing paths on purpose and are not read.
 */
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { exists, projectText } from './tree.js';

/** A path starting at one of the project's folders, not inside a longer path (`dist/src/…`). */
const named = /(?<![\w./@-])(?:src|test|bench|docs)\/[\w./-]*/g;
/** What makes a named path a placeholder or a pattern rather than a file. */
const pattern = /^[<*{…$[]/;
/** A Markdown link's target. */
const link = /\]\(([^)\s]+)\)/g;

export interface Missing {
  at: string;
  path: string;
}

function tidy(p: string): string {
  return p.replace(/[.\-/]+$/, '');
}

/** Whether `p` looks like a path at all (see above). */
function pathLike(p: string): boolean {
  const parts = p.split('/');
  return parts.length >= 3 || (parts.length === 2 && parts[1].includes('.'));
}

/** The paths `text` names that do not exist; `name` is the file the text is from. */
export function missingPaths(name: string, text: string, isThere: (p: string) => boolean = exists): Missing[] {
  const found = (p: string) => isThere(p) || (p.endsWith('.js') && isThere(p.replace(/\.js$/, '.ts')));
  const out: Missing[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    for (const m of line.matchAll(named)) {
      const after = line[(m.index ?? 0) + m[0].length] ?? '';
      if (pattern.test(after)) continue;
      const p = tidy(m[0]);
      if (!pathLike(p)) continue;
      if (!found(p)) out.push({ at: `${name}:${i + 1}`, path: p });
    }
    if (!name.endsWith('.md')) return;
    for (const m of line.matchAll(link)) {
      const target = m[1].split('#')[0];
      if (!target || /^[a-z]+:/i.test(target) || pattern.test(target)) continue;
      const p = path.posix.normalize(path.posix.join(path.posix.dirname(name), target));
      if (!found(p)) out.push({ at: `${name}:${i + 1}`, path: p });
    }
  });
  return out;
}

test('the check finds a missing path and passes over patterns and placeholders', () => {
  const there = (p: string) => p === 'src/town.ts' || p === 'docs/decisions/a.md';
  const text = [
    'see src/town.ts and src/feed/uri.ts.',
    'not files: src/<room>.ts, docs/decisions/*.md, src/{a,b}.ts, dist/src/town.js',
    'a link [a](decisions/a.md), another [b](decisions/b.md), away [c](https://example.org/x)',
  ].join('\n');
  assert.equal(missingPaths('docs/x.md', text, there), [
    { at: 'docs/x.md:1', path: 'src/feed/uri.ts' },
    { at: 'docs/x.md:3', path: 'docs/decisions/b.md' },
  ]);
  assert.equal(missingPaths('src/y.ts', 'the compiled src/town.js is src/town.ts built; 9 docs/s; docs/idx', there), []);
});

test('every docs/, src/, test/ and bench/ path named in the tree exists', () => {
  const self = 'test/docs/references.test.ts';
  const missing = projectText()
    .filter((f) => f.name !== self)
    .flatMap((f) => missingPaths(f.name, f.text));
  assert.ok(missing.length === 0, `paths that do not exist:\n${missing.map((m) => `${m.at}: ${m.path}`).join('\n')}`);
});

test.run();
