/**
 * Small gaps of the card language closed: `\u{…}` escapes in text, a byte-order mark at the
 * start of a file the command line reads, and typed data nested deeper than a request body may
 * be refused cleanly on the command line (it took the process past its stack).
 */
import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcess, tempCards } from '../../cli/support.js';

const card = (greeting: string) => `type S:\n  n: Natural\n\ndef initial() -> S:\n  return S { n: 0 }\n\ndef hello() -> Text:\n  return "${greeting}"\n`;

test('\\u{…} writes a character by its code point', async () => {
  const files = tempCards({ 'a.card': card('smile \\u{1F600} \\u{41}\\u{e9}') });
  try {
    const r = await inProcess(['repl', `${files.dir}/a.card`, 'hello', '--json']);
    assert.is(r.code, 0, r.stderr + r.stdout);
    assert.is(JSON.parse(r.stdout).result.value, 'smile 😀 Aé');
  } finally {
    files.cleanup();
  }
});

test('a \\u escape that names no character is refused at its place', async () => {
  for (const bad of ['\\u{D800}', '\\u{110000}', '\\u0041', '\\u{}', '\\u{1234567}']) {
    const files = tempCards({ 'a.card': card(bad) });
    try {
      const r = await inProcess(['check', `${files.dir}/a.card`]);
      assert.is(r.code, 1, `${bad}: ${r.stdout}`);
      assert.match(r.stdout, /a\.card:8:\d+ parse: .*(\\u|Unicode)/, bad);
    } finally {
      files.cleanup();
    }
  }
});

test('a file that begins with a byte-order mark reads as without it', async () => {
  const files = tempCards({ 'a.card': `\uFEFF${card('hi')}` });
  try {
    assert.ok(
      fs
        .readFileSync(`${files.dir}/a.card`)
        .subarray(0, 3)
        .equals(Buffer.from([0xef, 0xbb, 0xbf])),
    );
    const r = await inProcess(['check', `${files.dir}/a.card`]);
    assert.is(r.code, 0, r.stdout + r.stderr);
    const piped = await inProcess(['check', '-'], { input: `\uFEFF${card('hi')}` });
    assert.is(piped.code, 0, piped.stdout + piped.stderr);
  } finally {
    files.cleanup();
  }
});

test('typed data nested 600 deep is refused as a body nested past 256 would be, with or without --json', async () => {
  const files = tempCards({
    'tree.card':
      'type S:\n  n: Natural\n\ntype Tree:\n  leaf\n  node { kids: List Tree }\n\ndef initial() -> S:\n  return S { n: 0 }\n\ndef size(t: Tree) -> Natural:\n  return 1\n',
  });
  try {
    let d: unknown = { tag: 'variant', label: 'leaf' };
    for (let i = 0; i < 600; i++)
      d = { tag: 'variant', label: 'node', payload: { tag: 'record', fields: [{ name: 'kids', value: { tag: 'list', items: [d] } }] } };
    for (const more of [[], ['--json']]) {
      const r = await inProcess(['repl', `${files.dir}/tree.card`, 'size', JSON.stringify(d), ...more]);
      assert.is(r.code, 2, r.stderr);
      assert.match(r.stderr, /argument 1 nests deeper than 256 objects and lists/);
    }
    let plain: unknown = { label: 'leaf' };
    for (let i = 0; i < 600; i++) plain = { label: 'node', payload: { kids: [plain] } };
    const r = await inProcess(['repl', `${files.dir}/tree.card`, 'size', '--fields', JSON.stringify(plain)]);
    assert.is(r.code, 2, r.stderr);
    assert.match(r.stderr, /--fields nests deeper than 256/);
  } finally {
    files.cleanup();
  }
});

test.run();
