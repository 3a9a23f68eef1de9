/**
 * `card run` and `card repl` as a child process: real spells on the library's lamp and board
 * in a throwaway world, receipts as the turn reply carries them, `--try` writing nothing,
 * refusals of the create (seed, law, compile) and of the turns, and plain REPL entries. The
 * variations on a theme run in this process (the same runCard), the rest as a child process.
 */
import path from 'node:path';
import { isRight } from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TypedDataC } from '../../src/contract/typed.js';
import { TryReplyC, TurnReplyC, ValueReplyC, type TryReply, type TurnReply } from '../../src/queries/turn-reply.js';
import { broken, card, cli, escapeRe, inProcess, tempCards } from './support.js';

const lamp = 'src/cards/library/lamp.card';
const board = 'src/cards/library/board.card';
const postbox = 'src/cards/library/postbox.card';
const clock = '2026-11-23T12:00:00Z';

const RunC = t.intersection([
  t.type({
    create: TurnReplyC,
    casts: t.array(t.type({ as: t.string, spell: t.string, try: t.boolean, reply: t.union([TryReplyC, TurnReplyC]) })),
  }),
  t.partial({ card: t.type({ object: t.string, kind: t.string, version: t.number, owner: t.string, state: TypedDataC }) }),
]);
type Run = t.TypeOf<typeof RunC>;

function decode<A>(codec: t.Type<A>, text: string): A {
  const r = codec.decode(JSON.parse(text));
  if (!isRight(r)) throw new Error(`not of the documented shape: ${text.slice(0, 2000)}`);
  return r.right;
}

/** A card's state as plain values, for comparing. */
function plain(d: t.TypeOf<typeof TypedDataC>): unknown {
  switch (d.tag) {
    case 'record':
      return Object.fromEntries(d.fields.map((f) => [f.name, plain(f.value)]));
    case 'list':
      return d.items.map(plain);
    case 'variant':
      return { [d.label]: d.payload ? plain(d.payload) : {} };
    default:
      return d.value;
  }
}

const turn = (r: Run, i: number) => r.casts[i]!.reply as TurnReply;

test('lamp: spells cast in order; each receipt, then the card as it stands (text)', async () => {
  const r = await card('run', lamp, '--spell', 'light', '--spell', 'fill measures=3');
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.is(r.stderr, '');
  const l = r.lines;
  assert.equal(l.slice(0, 3), ['> create lamp as ann', '  status: done', '  line: ann.town created lamp']);
  const light = l.indexOf('> light');
  const fill = l.indexOf('> fill measures=3');
  assert.ok(light > 0 && fill > light, r.stdout);
  assert.equal(l.slice(light + 1, light + 3), ['  status: done', '  line: ann.town lights the lamp']);
  assert.ok(
    l.slice(light, fill).some((x) => /^ {2}ticks: [1-9]\d*$/.test(x)),
    'ticks used are shown',
  );
  assert.ok(l.slice(light, fill).includes('  revealed: lamp stands at version 2'));
  assert.equal(l.slice(-2), ['card lamp, version 3:', '  state: { lit: true, fuel: 5 }']);
});

test('lamp --json: the turn replies (spec 2.5, full), refusals with their fields, a try that writes nothing', async () => {
  const spells = [
    '--spell',
    'light',
    '--spell',
    'lend lamp to bob',
    '--as',
    'bob',
    '--spell',
    'douse',
    '--try',
    'fill measures=2',
    '--as',
    'ann',
    '--spell',
    'fill 12',
  ];
  const r = await card('run', lamp, ...spells, '--json', '--clock', clock);
  assert.is(r.code, 1, 'a refused turn makes the exit 1');
  const run = decode(RunC, r.stdout);
  assert.is(run.create.status, 'done');
  assert.is(run.create.receipt.height, 1);
  assert.equal(
    run.casts.map((c) => [c.as, c.spell, c.try, c.reply.status]),
    [
      ['ann', 'light', false, 'done'],
      ['ann', 'lend lamp to bob', false, 'done'],
      ['bob', 'douse', false, 'refused'],
      ['bob', 'fill measures=2', true, 'done'],
      ['ann', 'fill 12', false, 'refused'],
    ],
  );
  const douse = turn(run, 2);
  assert.is(douse.class, 'lawRefused');
  assert.is(douse.clause, 'kept');
  assert.is(douse.reading, 'only its owner puts it out');
  assert.is(douse.reason, 'refused kept: only its owner puts it out');
  assert.is(douse.line, 'refused kept: only its owner puts it out');
  assert.type(douse.receipt.slug, 'string', 'a refused turn is journaled: it has a receipt');
  assert.is(douse.whole!.usage.ticks > 0, true);
  const tried = run.casts[3]!.reply as TryReply;
  assert.is(tried.try, true);
  assert.is(tried.journaled, false);
  assert.is(tried.receipt.slug, null);
  assert.equal(
    tried.writes.map((w) => [w.object, w.version, plain(w.state)]),
    [['lamp', 4, { lit: true, fuel: 4 }]],
  );
  assert.equal(tried.roots, [{ object: 'lamp', version: 3 }]);
  const twelve = turn(run, 4);
  assert.is(twelve.class, 'badSpell');
  assert.is(twelve.clause, 'badValue');
  assert.is(twelve.hint, 'fill measures=<natural 0..9>');
  assert.is(twelve.receipt.height, 5, 'the try took no height: light 2, lend 3, douse 4, fill 5');
  // The try left the card as it was: version 3 (create, light, lend), two measures of oil.
  assert.equal(run.card && [run.card.version, plain(run.card.state)], [3, { lit: true, fuel: 2 }]);
  const without = decode(RunC, (await card('run', lamp, ...spells.filter((_, i) => i < 8 || i > 9), '--json', '--clock', clock)).stdout);
  assert.equal(without.card, run.card, 'the same spells without the try end with the same card');
});

test('the same spells at the same --clock give the same receipts, content ids and all', async () => {
  const args = ['run', board, '--spell', 'add key=a text=hello', '--json', '--clock', clock];
  const [a, b, later] = await Promise.all([inProcess(args), inProcess(args), inProcess([...args.slice(0, -1), '2026-11-23T13:00:00Z'])]);
  assert.is(a.stdout, b.stdout);
  const x = decode(RunC, a.stdout);
  const y = decode(RunC, later.stdout);
  assert.type(turn(x, 0).receipt.slug, 'string');
  assert.is.not(turn(x, 0).receipt.cid, turn(y, 0).receipt.cid, 'the clock is part of what an entry is');
});

test('board: keyed rows, keyTaken printed as the reply carries it, update and a try of remove', async () => {
  const r = await card(
    'run',
    board,
    '--spell',
    'add key=a text=hello',
    '--spell',
    'add key=a text=again',
    '--spell',
    'update key=a text=changed',
    '--try',
    'remove key=a',
    '--json',
  );
  assert.is(r.code, 1);
  const run = decode(RunC, r.stdout);
  const taken = turn(run, 1);
  assert.is(taken.status, 'refused');
  assert.is(taken.class, 'keyTaken');
  assert.match(taken.reason!, /the key a is held by another row/);
  assert.is(turn(run, 2).status, 'done');
  const tried = run.casts[3]!.reply as TryReply;
  assert.equal(plain(tried.writes[0]!.state), { title: 'a notice board', rows: [] });
  assert.equal(plain(run.card!.state), { title: 'a notice board', rows: [{ key: 'a', text: 'changed', by: 'guest:town:ann' }] });
  const text = await inProcess(['run', board, '--spell', 'add key=a text=hello', '--spell', 'add key=a text=again']);
  assert.is(text.code, 1);
  const at = text.lines.indexOf('> add key=a text=again');
  assert.equal(text.lines.slice(at + 1, at + 6), [
    '  status: refused',
    '  class: keyTaken',
    `  line: keyTaken: ${taken.reason}`,
    '  hintKind: self',
    `  reason: ${taken.reason}`,
  ]);
});

test('sends are delivered after the turn, as the host does; the delivery is listed; a send to no card refuses the turn', async () => {
  const r = await card('run', postbox, '--spell', 'post to=postbox text=hi copies=1');
  assert.is(r.code, 0, 'the turn itself was done');
  assert.ok(r.lines.includes('  revealed: postbox sent receive to postbox (queued, depth 1)'), r.stdout);
  assert.ok(
    r.lines.some((l) => l.startsWith('  delivered: postbox.receive refused: ')),
    r.stdout,
  );
  const nobody = await card('run', postbox, '--spell', 'post to=nobody text=hi copies=1');
  assert.is(nobody.code, 1, 'a send into nothing is refused with the whole turn, not dropped at delivery');
  assert.ok(nobody.lines.includes('  class: unknownObject'), nobody.stdout);
});

test('the create is the scratch objects route: seed and law refusals, compile errors, exit 1 and no spells cast', async () => {
  const files = tempCards({ 'dim.law': 'dim: self.fuel <= 2 -- "a dim lamp"\n', 'bad.law': 'dim: self.fuel <= -- "a dim lamp"\n', 'type.card': broken.type });
  try {
    const seeded = await inProcess(['run', lamp, '--seed', '{"fuel":12}', '--spell', 'light']);
    assert.is(seeded.code, 1);
    assert.ok(seeded.lines.includes('  class: lawRefused'));
    assert.ok(seeded.lines.includes('  clause: full'));
    assert.not.ok(seeded.lines.includes('> light'), 'nothing is cast on a card never made');
    const odd = await inProcess(['run', lamp, '--seed', '{"colour":"red"}']);
    assert.is(odd.code, 1);
    assert.ok(odd.lines.includes('  class: typeMismatch'), odd.stdout);
    const fine = await inProcess(['run', lamp, '--seed', '{"fuel":7}', '--json']);
    assert.equal(plain(decode(RunC, fine.stdout).card!.state), { lit: false, fuel: 7 });
    const dim = await inProcess(['run', lamp, '--law', path.join(files.dir, 'dim.law')]);
    assert.is(dim.code, 1);
    assert.ok(dim.lines.includes('  clause: dim'));
    const badLaw = path.join(files.dir, 'bad.law');
    const syntax = await inProcess(['run', lamp, '--law', badLaw]);
    assert.is(syntax.code, 1);
    assert.match(syntax.lines[0]!, new RegExp(`^${escapeRe(badLaw)}:1:\\d+ law: `));
    const typeFile = path.join(files.dir, 'type.card');
    const compiled = await card('run', typeFile, '--spell', 'light');
    assert.is(compiled.code, 1);
    assert.match(compiled.lines[0]!, new RegExp(`^${escapeRe(typeFile)}:5:\\d+ type: `));
    const json = await inProcess(['run', typeFile, '--json']);
    const body = JSON.parse(json.stdout) as { create: Record<string, unknown> };
    assert.is(body.create.status, 'error');
    assert.is(body.create.class, 'hostRequest');
    assert.is(body.create.stage, 'type');
    assert.is(body.create.module, 'type');
    assert.equal((body.create.span as { line: number }).line, 5);
    assert.type(body.create.hint, 'string', 'the compile error hint is the envelope hint');
  } finally {
    files.cleanup();
  }
});

test('bad command lines: exit 2 and nothing run', async () => {
  const seed = await inProcess(['run', lamp, '--seed', '{"fuel":']);
  assert.is(seed.code, 2);
  assert.match(seed.stderr, /--seed is not JSON/);
  assert.is(seed.stdout, '');
  const who = await inProcess(['run', lamp, '--as', 'Bob', '--spell', 'light']);
  assert.is(who.code, 2);
  assert.match(who.stderr, /--as "Bob" is not a guest: a name/);
  const principal = await inProcess(['run', lamp, '--owner', 'guest:town:ann', '--as', 'guest:town:ann', '--spell', 'light']);
  assert.is(principal.code, 0, `--as and --owner take the principal state compares against, too: ${principal.stderr}`);
  assert.ok(principal.lines.includes('  line: ann.town lights the lamp'), principal.stdout);
  const law = await inProcess(['run', lamp, '--law', 'no-such.law']);
  assert.is(law.code, 2);
  assert.match(law.stderr, /cannot read law file no-such\.law: no such file or directory/);
  const when = await inProcess(['run', lamp, '--clock', 'tuesday']);
  assert.is(when.code, 2);
});

test('standard input: a card made from -, named main', async () => {
  const src =
    'type Jar:\n  beans: Natural 0..20\n\ndef initial() -> Jar:\n  return Jar { beans: 0 }\n\nspell add(self: Jar, n: Natural 1..5) -> Jar:\n  say "{n} beans in"\n  return self { beans: self.beans + n }\n';
  const r = await cli(['card', 'run', '-', '--spell', 'add 3', '--spell', 'add n=4'], { input: src });
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.ok(r.lines.includes('  line: 3 beans in'));
  assert.equal(r.lines.slice(-2), ['card main, version 3:', '  state: { beans: 7 }']);
});

test('repl: a plain entry on typed arguments answers its value; refusals and malformed arguments', async () => {
  const [found, plural, json, missing, untyped, activity] = await Promise.all([
    card('repl', board, 'find', '{"tag":"list","items":[]}', '{"tag":"label","value":"a"}'),
    inProcess(['repl', 'src/cards/library/core.card', 'plural', '{"tag":"natural","value":2}', '{"tag":"label","value":"lamp"}']),
    inProcess(['repl', 'src/cards/library/core.card', 'plural', '{"tag":"natural","value":1}', '{"tag":"label","value":"lamp"}', '--json']),
    inProcess(['repl', lamp, 'nothing', '--json']),
    inProcess(['repl', 'src/cards/library/core.card', 'plural', '3']),
    card('repl', lamp, 'fill', '--fields', '{"measures":2}', '--json'),
  ]);
  assert.is(found.code, 0, found.stdout + found.stderr);
  assert.is(found.lines[0], 'result: 0');
  assert.match(found.lines[1]!, /^ticks: \d+$/);
  assert.is(plural.lines[0], 'result: "2 lamps"');
  const value = decode(ValueReplyC, json.stdout);
  assert.equal(value.result, { tag: 'label', value: '1 lamp' });
  assert.is(missing.code, 1);
  const refused = decode(TurnReplyC, missing.stdout);
  assert.is(refused.class, 'noMethod');
  assert.is(refused.journaled, false);
  assert.is(refused.receipt.slug, null);
  assert.is(untyped.code, 1);
  assert.equal(untyped.lines, ['hostRequest: arguments: each is typed data (spec 2.6)']);
  assert.is(activity.code, 0, activity.stdout);
  const spell = decode(TurnReplyC, activity.stdout);
  assert.is(spell.status, 'done');
  assert.match(spell.line, /pours in 2 measures/);
  const none = await inProcess(['repl', lamp]);
  assert.is(none.code, 2);
});

test.run();
