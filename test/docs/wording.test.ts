/**
 * The tree says nothing about how the work on it was organised: no numbered work periods
 * ("session 7", "period 3", "round 2" used that way), no issue or pull request numbers as names,
 * no one who led or assisted, no engineers or helpers at work. The patterns are narrow on purpose:
 * "leads to", "misleading", an MCP or HTTP session, the sessions of a cookie, a test helper and
 * "the service issues 18 bits" are ordinary words and pass. This file states the patterns and its
 * own examples, so it is the one file not read.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectText } from './tree.js';

const rules: { why: string; pattern: RegExp }[] = [
  { why: 'a numbered work period', pattern: /\b(?:work )?(?:session|period|round) \d+\b/i },
  { why: 'numbered work periods', pattern: /\b(?:sessions|periods|rounds) \d+(?:, | and | to |–)\d+\b/i },
  { why: 'an issue number', pattern: /\bissue #?\d+\b/i },
  { why: 'issue numbers', pattern: /\bissues #\d+/i },
  { why: 'a pull request number', pattern: /\b(?:PR|pull request) #?\d+\b/i },
  { why: 'a number as a section name', pattern: /^#{1,6} .*#\d+\b/ },
  { why: 'engineers', pattern: /\bengineers?\b/i },
  { why: 'who led', pattern: /\bthe lead\b|\blead's\b|\b(?:was|were) led by\b|\bwho led\b/i },
  { why: 'who assisted', pattern: /\bassisted by\b|\bwho assisted\b|\bassistants?\b/i },
  {
    why: 'a helper at work',
    pattern:
      /\bother helpers\b|\bhelpers' (?:suites|benches|builds|tests|runs|work)\b|\bthe helper's (?:branch|run|runs|code|gain|work|measurement)\b|\ba helper (?:built|read|measured|ran|found|took|wrote)\b/i,
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
    '## The start, session 7',
    'measured in sessions 5 and 6',
    'tried in round 2 of the work',
    'see issue 12, item 6',
    '## The feed (#14)',
    'while eight other engineers ran their suites',
    'the lead took it out again',
    'a helper built it in full',
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
  const self = 'test/docs/wording.test.ts';
  const found = projectText()
    .filter((f) => f.name !== self)
    .flatMap((f) => findings(f.name, f.text));
  assert.ok(found.length === 0, `organisational wording:\n${found.map((f) => `${f.at}: ${f.why}: ${f.line}`).join('\n')}`);
});

test.run();
