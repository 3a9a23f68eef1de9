/**
 * The "Command line" section of docs/cards.md runs as written: each ```console block is a shell
 * session whose `$ ` lines are run (with `npm run town --` meaning this build's town.js, from
 * the repository's root, standard error beside standard output) and whose other lines are
 * exactly what they print. `…` in a printed line stands for any text (ticks).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { escapeRe, repoRoot, townJs } from './support.js';

const doc = readFileSync(path.join(repoRoot, 'docs', 'cards.md'), 'utf8');
const start = doc.indexOf('\n## Command line\n');
const end = doc.indexOf('\n## ', start + 1);
const section = start < 0 ? '' : doc.slice(start, end < 0 ? undefined : end);
const blocks = [...section.matchAll(/```console\n([\s\S]*?)```/g)].map((m) => m[1]!);

/** The session as a shell script, and the lines it must print. */
function session(block: string): { script: string; expected: string[] } {
  const script = ['exec 2>&1'];
  const expected: string[] = [];
  const lines = block.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.startsWith('$ ')) {
      expected.push(line);
      continue;
    }
    script.push(line.slice(2).replace(/^npm run (-s )?town --/, 'node "$TOWN_JS"'));
    const heredoc = /<<'(\w+)'$/.exec(line);
    if (!heredoc) continue;
    while (++i < lines.length) {
      script.push(lines[i]!);
      if (lines[i] === heredoc[1]) break;
    }
  }
  return { script: script.join('\n') + '\n', expected };
}

function sh(script: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', script], { cwd: repoRoot, env: { ...process.env, TOWN_JS: townJs }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the session took over 60 s'));
    }, 60_000);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

test('the section exists and shows every card command', () => {
  assert.ok(section.length > 0, 'docs/cards.md has a "## Command line" section');
  assert.ok(blocks.length >= 4);
  for (const sub of ['check', 'forms', 'run', 'view', 'repl'])
    assert.ok(
      blocks.some((b) => b.includes(`$ npm run town -- card ${sub} `)),
      `an example of card ${sub}`,
    );
  assert.not.match(section, /```(card|session|error) \w+\n/, 'no block the language examples test would take for its own');
});

blocks.forEach((block, n) => {
  test(`command line example ${n + 1}: ${block.split('\n')[0]!.slice(0, 70)}`, async () => {
    const { script, expected } = session(block);
    const got = (await sh(script)).split('\n');
    if (got[got.length - 1] === '') got.pop();
    const pattern = (line: string) => new RegExp(`^${line.split('…').map(escapeRe).join('.*')}$`);
    const wrong = expected.findIndex((line, i) => got[i] === undefined || !pattern(line).test(got[i]!));
    if (wrong >= 0 || got.length !== expected.length) {
      assert.fixture(got.join('\n'), expected.join('\n'), `the page says (line ${wrong + 1})`);
    }
  });
});

test.run();
