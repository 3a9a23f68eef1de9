/**
 * The card command line as an author reaches for it beyond check/forms/run: `card view` draws a
 * view, a turn shows every line it said (a rule's too), `--argument` casts a spell with a typed
 * argument read against its parameters, and a reader that goes away (`| head -1`) ends the
 * output without a stack trace. The many small cases run in this process; the pipe as a child.
 */
import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcess, repoRoot, tempCards, townJs } from './support.js';

const lamp = 'src/cards/library/lamp.card';
const board = 'src/cards/library/board.card';
const bench = 'src/cards/library/bench.card';

const shapes = `type Shape:
  dot
  box { w: Natural, h: Natural }

type S:
  shapes: List Shape

def initial() -> S:
  return S { shapes: [] }

spell place(self: S, shape: Shape) -> S:
  say "placed"
  say "now {length(self.shapes) + 1}"
  return self { shapes: append(self.shapes, shape) }

view count(self: S, viewer: Principal) -> Text:
  return "{length(self.shapes)} shapes"
`;

test('view: draws the view named, after the spells, for the viewer; its text as it is', async () => {
  const cold = await inProcess(['view', lamp, 'paint']);
  assert.is(cold.code, 0);
  assert.equal(cold.lines, ['( ) a cold lamp, 3 measures of oil']);
  const lit = await inProcess(['view', lamp, 'paint', '--spell', 'light', '--spell', 'fill measures=4']);
  assert.equal(lit.lines, ['(*) a lit lamp, 6 measures of oil left']);
  // A card made on the command line is its owner's alone until it is lent.
  const page = await inProcess([
    'view',
    board,
    'page',
    '--spell',
    'add key=a text=one',
    '--spell',
    'lend to bob',
    '--spell',
    'lend to cy',
    '--as',
    'bob',
    '--spell',
    'add key=b text=two',
    '--viewer',
    'cy',
  ]);
  assert.is(page.code, 0, page.stderr);
  assert.equal(page.lines, ['a notice board', 'a: one', 'b: two'], 'a page of several lines is printed line by line');
  const unseen = await inProcess(['view', lamp, 'paint', '--viewer', 'bob']);
  assert.is(unseen.code, 1);
  assert.equal(unseen.lines, ['unknown: no card lamp that bob may see']);
  const json = await inProcess(['view', lamp, 'paint', '--json', '--spell', 'lend to bob', '--viewer', 'bob']);
  assert.equal(JSON.parse(json.stdout).result, { tag: 'label', value: '( ) a cold lamp, 3 measures of oil' });
  assert.is(JSON.parse(json.stdout).viewer, 'guest:town:bob');
  assert.is(JSON.parse(json.stdout).view, 'paint');
});

test('view: no such view, a refused cast, a module that does not compile, no view named', async () => {
  const none = await inProcess(['view', lamp, 'glow']);
  assert.is(none.code, 1);
  assert.equal(none.lines, ['noMethod: lamp has no view glow; its views: paint']);
  const refused = await inProcess(['view', lamp, 'paint', '--spell', 'douse']);
  assert.is(refused.code, 1);
  assert.equal(refused.lines.slice(0, 3), ['> douse', '  status: refused', '  class: cardRefused']);
  const broken = await inProcess(['view', '-', 'paint'], { input: 'type X:\n  n Natural\n' });
  assert.is(broken.code, 1);
  assert.match(broken.stdout, /^<stdin>:2:5 parse: /);
  const bare = await inProcess(['view', lamp]);
  assert.is(bare.code, 2);
  assert.match(bare.stderr, 'view takes a module (file, directory or -) and the name of a view');
});

test('run: every line a turn said that its reply does not show, a rule line too; all of them under --json', async () => {
  const r = await inProcess(['run', lamp, '--spell', 'light', '--spell', 'douse']);
  assert.is(r.code, 0);
  const douse = r.lines.slice(r.lines.indexOf('> douse'));
  assert.ok(douse.includes('  line: ann.town puts out the lamp'));
  assert.ok(douse.includes('  says: lamp: the lamp goes dark'), douse.join('\n'));
  assert.not.ok(r.lines.includes('  says: lamp: ann.town puts out the lamp'), 'the line the reply shows is not said twice');
  const files = tempCards({ 'shapes.card': shapes });
  try {
    const two = await inProcess(['run', `${files.dir}/shapes.card`, '--spell', 'place', '--argument', '{"shape": "dot"}']);
    assert.is(two.code, 0, two.stdout + two.stderr);
    assert.ok(two.lines.includes('  line: placed'));
    assert.ok(two.lines.includes('  says: shapes: now 1'), two.lines.join('\n'));
    const json = JSON.parse((await inProcess(['run', lamp, '--spell', 'light', '--spell', 'douse', '--json'])).stdout);
    assert.equal(
      json.casts[1].says.map((s: { object: string; line: string }) => [s.object, s.line]),
      [
        ['lamp', 'ann.town puts out the lamp'],
        ['lamp', 'the lamp goes dark'],
      ],
    );
  } finally {
    files.cleanup();
  }
});

test('run --argument: records and lists, variants bare and with fields, typed data as it is', async () => {
  const rows = '{"rows": [{"key": "x", "text": "one", "by": "ann"}, {"key": "y", "text": "two", "by": "ann"}]}';
  const put = await inProcess(['run', board, '--spell', 'put', '--argument', rows, '--json']);
  assert.is(put.code, 0, put.stdout);
  const out = JSON.parse(put.stdout);
  assert.is(out.casts[0].reply.status, 'done');
  assert.is(out.casts[0].argument.fields[0].value.items.length, 2);
  assert.equal(out.card.state.fields[1].value.items[1].fields[0].value, { tag: 'label', value: 'y' });
  const files = tempCards({ 'shapes.card': shapes });
  try {
    const file = `${files.dir}/shapes.card`;
    const r = await inProcess([
      'view',
      file,
      'count',
      '--spell',
      'place',
      '--argument',
      '{"shape": {"label": "box", "payload": {"w": 2, "h": 3}}}',
      '--spell',
      'place',
      '--argument',
      '{"shape": "dot"}',
      '--spell',
      'place',
      '--argument',
      '{"tag": "record", "fields": [{"name": "shape", "value": {"tag": "variant", "label": "dot"}}]}',
    ]);
    assert.is(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.lines, ['3 shapes']);
    // A field left out is the host's to refuse, as over HTTP.
    const missing = await inProcess(['run', file, '--spell', 'place', '--argument', '{"shape": {"label": "box", "payload": {"w": 2}}}']);
    assert.is(missing.code, 1);
    assert.ok(missing.lines.includes('  class: typeMismatch'), missing.stdout);
    assert.ok(missing.lines.includes('  reason: shape.box.h: missing; wanted Natural'), missing.stdout);
    // A form's spell takes a typed argument too.
    const crafted = await inProcess(['run', bench, '--spell', 'craft', '--argument', '{"kind": "note"}']);
    assert.is(crafted.code, 0, crafted.stdout);
    assert.ok(crafted.lines.includes('  offers: note-2'), crafted.stdout);
  } finally {
    files.cleanup();
  }
});

test('run --argument: what does not fit is said with its path and the type wanted (exit 2, nothing cast)', async () => {
  const wrong = await inProcess(['run', board, '--spell', 'put', '--argument', '{"rows": [{"key": 7}]}']);
  assert.is(wrong.code, 2);
  assert.is(wrong.stdout, '', 'the host was never asked');
  assert.is(wrong.stderr, 'card: --argument of put: rows[0].key: wanted text (Text 1..40); put takes spell put(self: Board, rows: List Row) -> Board\n');
  const tag = await inProcess(['run', bench, '--spell', 'craft', '--argument', '{"kind": "dragon"}']);
  assert.is(tag.code, 2);
  assert.match(tag.stderr, 'kind: "dragon" is not one of lamp, note, board, door, room');
  const extra = await inProcess(['run', board, '--spell', 'put', '--argument', '{"rowz": []}']);
  assert.match(extra.stderr, 'has no field "rowz"; its fields are rows');
  const noSpell = await inProcess(['run', board, '--spell', 'polish', '--argument', '{}']);
  assert.is(noSpell.code, 2);
  assert.match(noSpell.stderr, 'board has no spell polish');
  const notJson = await inProcess(['run', board, '--spell', 'put', '--argument', '{rows']);
  assert.is(notJson.code, 2);
  assert.match(notJson.stderr, '--argument of put is not JSON');
  const alone = await inProcess(['run', board, '--argument', '{}']);
  assert.is(alone.code, 2);
  assert.match(alone.stderr, '--argument gives the typed argument of the --spell (or --try) before it');
  const spelled = await inProcess(['run', board, '--spell', 'add key=a', '--argument', '{}']);
  assert.is(spelled.code, 2);
  assert.match(spelled.stderr, '--argument goes with a spell named alone');
  const twice = await inProcess(['run', board, '--spell', 'put', '--argument', '{"rows": []}', '--argument', '{"rows": []}']);
  assert.is(twice.code, 2);
  assert.match(twice.stderr, '--spell put has one --argument');
});

/** The command as a child whose reader is gone before it writes: every write meets EPIPE. */
function readerGone(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [townJs, ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('took over 30 s'));
    }, 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

test('a reader that goes away (| head -1) ends the output: no stack trace, the exit code of the command', async () => {
  for (const args of [
    ['card', 'forms', board],
    ['card', 'run', 'src/cards/library/postbox.card', '--spell', 'post to=postbox text=hi copies=32'],
    ['card', 'view', board, 'page'],
  ]) {
    const r = await readerGone(args);
    assert.is(r.stderr, '', `${args.join(' ')}: ${r.stderr}`);
    assert.is(r.code, 0, args.join(' '));
  }
  const refused = await readerGone(['card', 'run', lamp, '--spell', 'douse']);
  assert.is(refused.stderr, '');
  assert.is(refused.code, 1, 'a refused turn still exits 1');
});

test.run();
