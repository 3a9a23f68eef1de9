/**
 * The tree speaks of the project only: what it is, how it works, why, and how to reproduce its
 * figures; the history of how it was made is the commit log. This test reads every file for
 * wording that would tell that history instead, by narrow patterns (ordinary words such as
 * "leads to", an MCP or HTTP session, a test helper pass). The vocabulary is assembled from
 * pieces below so that this file, which states it, does not itself carry the lines it forbids.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectText } from './tree.js';

/** Joins the pieces of a phrase: the forbidden vocabulary never stands whole in this file. */
const w = (...pieces: string[]) => pieces.join('');
const period = w('ses', 'sion|per', 'iod|rou', 'nd');
const periods = w('ses', 'sions|per', 'iods|rou', 'nds');

const rules: { why: string; pattern: RegExp }[] = [
  { why: 'a numbered period of work', pattern: new RegExp(w('\\b(?:work )?(?:', period, ') \\d+\\b'), 'i') },
  { why: 'numbered periods of work', pattern: new RegExp(w('\\b(?:', periods, ') \\d+(?:, | and | to |–)\\d+\\b'), 'i') },
  { why: 'a tracker number', pattern: new RegExp(w('\\bis', 'sue #?\\d+\\b'), 'i') },
  { why: 'tracker numbers', pattern: new RegExp(w('\\bis', 'sues #\\d+'), 'i') },
  { why: 'a pull request number', pattern: /\b(?:PR|pull request) #?\d+\b/i },
  { why: 'a number as a section name', pattern: /^#{1,6} .*#\d+\b/ },
  { why: 'the people at work', pattern: new RegExp(w('\\beng', 'ineers?\\b'), 'i') },
  { why: 'who directed the work', pattern: new RegExp(w('\\bthe le', 'ad\\b|\\ble', "ad's\\b|\\b(?:was|were) le", 'd by\\b|\\bwho le', 'd\\b'), 'i') },
  { why: 'who took part', pattern: new RegExp(w('\\bas', 'sisted by\\b|\\bwho as', 'sisted\\b|\\bas', 'sistants?\\b'), 'i') },
  {
    why: 'delegated work',
    pattern: new RegExp(
      w(
        '\\bother hel',
        'pers\\b|\\bhel',
        "pers' (?:suites|benches|builds|tests|runs|work)\\b|\\bthe hel",
        "per's (?:branch|run|runs|code|gain|work|measurement)\\b|\\ba hel",
        'per (?:built|read|measured|ran|found|took|wrote)\\b',
      ),
      'i',
    ),
  },
];

export interface Finding {
  at: string;
  why: string;
  line: string;
}

/** Each line of `text` that a rule matches, as `name:line`. */
export function findings(name: string, text: string): Finding[] {
  const out: Finding[] = [];
  text.split('\n').forEach((line, i) => {
    for (const rule of rules) if (rule.pattern.test(line)) out.push({ at: `${name}:${i + 1}`, why: rule.why, line: line.trim() });
  });
  return out;
}

test('the rules find organisational wording', () => {
  const bad = [
    w('## The start, ses', 'sion 7'),
    w('measured in ses', 'sions 5 and 6'),
    w('tried in rou', 'nd 2 of the work'),
    w('see is', 'sue 12, item 6'),
    '## The feed (#14)',
    w('while eight other eng', 'ineers ran their suites'),
    w('the le', 'ad took it out again'),
    w('a hel', 'per built it in full'),
  ];
  for (const line of bad) assert.ok(findings('x.md', line).length > 0, line);
});

test('the rules pass ordinary words', () => {
  const good = [
    'an append that fails leads to a refusal; a misleading name',
    'MCP sessions are owned by the credential; 4 sessions per credential',
    'credentials and sessions 256, and only hashes are kept',
    'the newest durable frames of this session',
    'the service issues 18 bits',
    'the test helper `unlimited()`; V8 helper threads',
    'muted text #5f5a52 and PKCS #8',
    '5 rounds of 1 s, `--rounds=3`',
  ];
  for (const line of good) assert.equal(findings('x.md', line), [], line);
});

test('no file of the tree says how the work was organised', () => {
  const found = projectText().flatMap((f) => findings(f.name, f.text));
  assert.ok(found.length === 0, `organisational wording:\n${found.map((f) => `${f.at}: ${f.why}: ${f.line}`).join('\n')}`);
});

test.run();
