/** The sealed library: every module compiles, every page has an example spell that works, and the kinds behave. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../../src/cards/compile.js';
import { libraryKinds, libraryNames, sealedLibrary } from '../../../src/cards/library/index.js';
import type { Program } from '../../../src/cards/program.js';
import { label, list, natural, record, type TypedData } from '../../../src/contract/typed.js';
import { ann, bob, budget, cast, ctx, get, ok, plain, refused } from './helpers.js';
import { readSpell } from './spells.js';

const lib = sealedLibrary();
const program = (name: string): Program => {
  const r = compile({ modules: [lib.modules.get(name)!] }, lib);
  if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
  return r.program;
};
const start = (p: Program) => {
  const r = p.initial(budget, ctx());
  if (!r.ok) throw new Error(JSON.stringify(r.refusal));
  return r.state;
};

test('the library loads from the source tree (also when running from dist/) with a page per module', () => {
  assert.equal([...lib.modules.keys()], [...libraryNames]);
  for (const name of libraryNames) {
    assert.ok(lib.modules.get(name)!.source.length > 100, name);
    assert.ok(lib.pages!.get(name)!.startsWith(`# ${name}`), name);
  }
  assert.is(sealedLibrary(), lib);
});

test('every module compiles; every one but core programs a card', () => {
  for (const name of libraryNames) program(name);
  assert.equal(libraryKinds(), ['room', 'door', 'avatar', 'note', 'board', 'lamp', 'bench', 'postbox', 'market', 'town']);
});

test('every library page has an example spell that the module hears, and it runs', () => {
  for (const name of libraryNames) {
    const page = lib.pages!.get(name)!;
    const spells = [...page.matchAll(/```spell\n([\s\S]*?)```/g)].map((x) => x[1]!.trim());
    assert.ok(spells.length > 0, `${name}.md has an example spell`);
    let p: Program;
    if (name === 'core') {
      const card = /```card\n([\s\S]*?)```/.exec(page);
      assert.ok(card, 'core.md shows a card that uses it');
      const r = compile({ modules: [{ name: 'tally', source: card![1]! }] }, lib);
      assert.ok(r.ok, JSON.stringify(!r.ok && r.diagnostics));
      p = (r as { program: Program }).program;
    } else p = program(name);
    let s = start(p);
    for (const text of spells) {
      if (name === 'town') {
        s = ok(cast(p, 'receive', s, { text: label(text), post: label('') })).state;
        continue;
      }
      const { method, args } = readSpell(text, p.methods);
      const r = p.call(method, s, args, ctx({ self: 'card-1' }), budget);
      assert.ok(r.ok, `${name}: ${text} → ${JSON.stringify(!r.ok && r.refusal)}`);
      if (r.ok) s = r.state;
    }
  }
});

test('lamp: law, want and rule as its page says', () => {
  const p = program('lamp');
  const s = start(p);
  const lit = ok(cast(p, 'light', s)).state;
  assert.equal(refused(cast(p, 'light', lit)).refusal, { class: 'cardRefused', clause: 'lit', reading: 'the lamp is already lit' });
  const out = ok(cast(p, 'douse', lit, {}, ctx({ caller: bob }))).state;
  assert.is(p.checkLaw(lit, out, ctx({ caller: bob }))?.name, 'kept');
  const full = ok(cast(p, 'fill', s, { measures: natural(9) })).state;
  assert.is(p.checkLaw(s, full, ctx())?.name, 'full');
  const r = p.runRules(lit, out, ctx(), budget);
  assert.ok(r.ok && r.says[0] === 'the lamp goes dark');
  const v = p.view('paint', lit, ann, budget);
  assert.ok(v.ok && plain(v.result) === '(*) a lit lamp, 2 measures of oil left');
});

test('board: keyTaken, absentItem, duplicateKey, and who may change a row', () => {
  const p = program('board');
  let s = start(p);
  s = ok(cast(p, 'add', s, { key: label('market'), text: label('every morning') })).state;
  assert.equal(refused(cast(p, 'add', s, { key: label('market'), text: label('again') })).refusal, {
    class: 'keyTaken',
    reason: 'the key market is held by another row; update it, or add market-2',
  });
  assert.equal(refused(cast(p, 'update', s, { key: label('fair'), text: label('x') })).refusal, { class: 'absentItem', reason: 'no row has the key fair' });
  assert.equal(refused(cast(p, 'remove', s, { key: label('fair') })).refusal, { class: 'absentItem', reason: 'no row has the key fair' });
  assert.equal(refused(cast(p, 'update', s, { key: label('market'), text: label('x') }, ctx({ caller: bob }))).refusal.class, 'cardRefused');
  s = ok(cast(p, 'update', s, { key: label('market'), text: label('every noon') })).state;
  assert.equal(get(s, 'rows'), [{ key: 'market', text: 'every noon', by: ann }]);
  const row = (key: string) => record({ key: label(key), text: label(''), by: label(ann) });
  assert.equal(refused(cast(p, 'put', s, { rows: list([row('a'), row('b'), row('a')]) })).refusal, {
    class: 'duplicateKey',
    reason: 'the key a is named twice',
  });
  s = ok(cast(p, 'put', s, { rows: list([row('a'), row('b')]) })).state;
  s = ok(cast(p, 'remove', s, { key: label('a') })).state;
  const page = p.view('page', s, ann, budget);
  assert.ok(page.ok && plain(page.result) === 'a notice board\nb: ');
  assert.is(p.methods.find((m) => m.name === 'put')!.form, undefined);
});

test('avatar: go, take, drop and give are moves the kernel checks; the avatar keeps no list of places', () => {
  const av = program('avatar');
  const c = ctx({ self: 'avatar-ann', place: 'square' });
  const a = start(av);
  assert.equal(plain(a), { name: 'guest', inbox: [] }, "no room, no carried list: places are the kernel's");
  const moves = (method: string, args: Record<string, TypedData>) => ok(cast(av, method, a, args, c)).moves;
  assert.equal(moves('go', { room: label('library') }), [{ thing: 'avatar-ann', to: 'library' }]);
  assert.equal(moves('take', { thing: label('lamp') }), [{ thing: 'lamp', to: 'avatar-ann' }]);
  assert.equal(moves('drop', { thing: label('lamp') }), [{ thing: 'lamp', to: 'square' }], 'down where the avatar stands');
  assert.equal(moves('give', { thing: label('lamp'), to: label('avatar-bob') }), [{ thing: 'lamp', to: 'avatar-bob' }]);
  assert.equal(refused(cast(av, 'drop', a, { thing: label('lamp') }, ctx({ self: 'avatar-ann', place: '' }))).refusal.class, 'cardRefused');
  assert.is(av.checkLaw(a, ok(cast(av, 'rename', a, { name: label('x') }, c)).state, ctx({ caller: bob }))?.name, 'named');
});

test('market: purses mint by rule, a sale moves the thing and the coins in one spell, a bounty pays its full crew; the law counts every coin', () => {
  const m = program('market');
  const c = ctx({ self: 'market', place: 'square' });
  let s = start(m);
  s = ok(cast(m, 'purse', s, {}, c)).state;
  assert.is(refused(cast(m, 'purse', s, {}, c)).refusal.class, 'cardRefused', 'one purse per guest');
  const listed = ok(cast(m, 'sell', s, { item: label('note-3'), price: natural(4) }, c));
  assert.equal(listed.moves, [{ thing: 'note-3', to: 'market' }]);
  s = listed.state;
  const bobs = ctx({ self: 'market', place: 'square', caller: bob });
  assert.is((refused(cast(m, 'buy', s, { item: label('note-3'), to: label('avatar-bob') }, bobs)).refusal as { clause?: string }).clause, 'purse');
  s = ok(cast(m, 'purse', s, {}, bobs)).state;
  const sold = ok(cast(m, 'buy', s, { item: label('note-3'), to: label('avatar-bob') }, bobs));
  assert.equal(sold.moves, [{ thing: 'note-3', to: 'avatar-bob' }]);
  assert.equal(
    sold.sends.map((x) => [x.to, x.method]),
    [['town', 'news']],
    'the town hears what is for sale now',
  );
  s = sold.state;
  assert.is(m.checkLaw(undefined, s, c), undefined);
  const coins = (st: typeof s) => Object.fromEntries((get(st, 'coins') as { key: string; value: number }[]).map((e) => [e.key, e.value]));
  assert.equal(coins(s), { [ann]: 14, [bob]: 6 });
  // a bounty for a crew of two: held from the poster's purse, paid to each member when met
  s = ok(cast(m, 'post', s, { key: label('fetch'), text: label('bring the lamp'), wants: label('lamp'), reward: natural(2), crew: natural(2) }, c)).state;
  assert.is((refused(cast(m, 'join', s, { key: label('fetch') }, c)).refusal as { clause?: string }).clause, 'own');
  s = ok(cast(m, 'join', s, { key: label('fetch') }, bobs)).state;
  assert.is((refused(cast(m, 'meet', s, { key: label('fetch') }, bobs)).refusal as { clause?: string }).clause, 'crew', 'a crew of two needs two');
  const cys = ctx({ self: 'market', place: 'square', caller: 'guest:town.test:cy' });
  s = ok(cast(m, 'join', s, { key: label('fetch') }, cys)).state;
  const met = ok(cast(m, 'meet', s, { key: label('fetch') }, cys));
  assert.equal(met.moves, [{ thing: 'lamp', to: 'market' }]);
  assert.equal(coins(met.state), { [ann]: 10, [bob]: 8, 'guest:town.test:cy': 2 });
  assert.is(m.checkLaw(s, met.state, cys), undefined);
  // a state that makes coins out of nothing breaks the law
  const forged = ok(cast(m, 'purse', start(m), {}, c)).state;
  const inflated = {
    ...forged,
    fields: (forged as { fields: { name: string; value: TypedData }[] }).fields.map((f) => (f.name === 'minted' ? { name: 'minted', value: natural(99) } : f)),
  } as typeof forged;
  assert.ok(m.checkLaw(forged, inflated, c));
});

test('room: keeps its doors; who and what is here is not its state', () => {
  const room = program('room');
  let r = start(room);
  assert.equal(plain(r), { name: 'a room', description: '', doors: [] });
  r = ok(cast(room, 'addDoor', r, { door: label('door-1') })).state;
  assert.equal(refused(cast(room, 'addDoor', r, { door: label('door-1') })).refusal.class, 'keyTaken');
  assert.equal(refused(cast(room, 'removeDoor', r, { door: label('door-2') })).refusal.class, 'absentItem');
  assert.equal(get(ok(cast(room, 'removeDoor', r, { door: label('door-1') })).state, 'doors'), []);
});

test('door: through moves the avatar to where the door leads', () => {
  const p = program('door');
  let s = start(p);
  s = ok(cast(p, 'connect', s, { from: label('square'), to: label('library') })).state;
  const there = ok(cast(p, 'through', s, { avatar: label('avatar-ann') }, ctx({ self: 'door-1', place: 'square' })));
  assert.equal(there.moves, [{ thing: 'avatar-ann', to: 'library' }]);
  assert.equal(there.sends, []);
  const closed = ok(cast(p, 'close', s)).state;
  assert.equal(refused(cast(p, 'through', closed, { avatar: label('a') })).refusal, { class: 'cardRefused', clause: 'closed', reading: 'a door is closed' });
  assert.equal((refused(cast(p, 'through', start(p), { avatar: label('a') })).refusal as { clause?: string }).clause, 'nowhere');
  const bad = ok(cast(p, 'connect', s, { from: label('x'), to: label('x') })).state;
  assert.is(p.checkLaw(s, bad, ctx())?.name, 'apart');
});

test('note: writing, adding, the want and the law', () => {
  const p = program('note');
  const s = start(p);
  assert.equal(p.openWants(s, ctx()), ['words']);
  const w = ok(cast(p, 'write', s, { text: label('hello') })).state;
  const w2 = ok(cast(p, 'add', w, { line: label('again') })).state;
  assert.is(get(w2, 'text'), 'hello\nagain');
  assert.equal(p.openWants(w2, ctx()), []);
  assert.is(p.checkLaw(s, w, ctx({ caller: bob }))?.name, 'kept');
});

test('town: answers prose deterministically, counts and remembers topics', () => {
  const p = program('town');
  let s = start(p);
  const help = ok(cast(p, 'receive', s, { text: label('help'), post: label('at://post/1') }));
  assert.ok(help.result.tag === 'label' && help.result.value.startsWith('I am the town.'));
  assert.equal(help.says, [(help.result as { value: string }).value]);
  const again = ok(cast(p, 'receive', s, { text: label('help'), post: label('at://post/2') }));
  assert.equal(again.result, help.result);
  s = help.state;
  for (const word of ['lamps', 'market', 'weather', 'boats', 'cats', 'dogs', 'bread', 'music', 'stars']) {
    const r = ok(cast(p, 'receive', s, { text: label(`what about ${word}?`), post: label('') }));
    s = r.state;
  }
  assert.is(get(s, 'heard'), 10);
  assert.equal((get(s, 'topics') as string[]).length, 8);
  const hi = ok(cast(p, 'receive', s, { text: label('hello town'), post: label('') }, ctx({ caller: bob })));
  assert.equal(
    hi.result,
    label(
      `Hello, bob.town.test. I have heard 10 posts so far. Open a purse of 10 coins at the market in the square (purse), then: bounties: no open bounties. On the market: nothing for sale. Sell what you carry (sell item=<card> price=<coins>), buy with buy item=<card> to=me.`,
    ),
    "spec 5.2: the guest's handle, not the principal",
  );
  const unknown = ok(cast(p, 'receive', s, { text: label('tell me about the zeppelin'), post: label('') }));
  assert.ok((unknown.result as { value: string }).value.includes('about tell'));
  const empty = ok(cast(p, 'receive', s, { text: label('   '), post: label('') }));
  assert.ok((empty.result as { value: string }).value.startsWith('I heard nothing'));
  assert.equal(
    p.methods.map((m) => [m.name, m.kind]),
    [
      ['receive', 'receive'],
      ['news', 'spell'],
      ['paint', 'view'],
    ],
  );
});

test('prose reaches the board, notes and avatars: each keeps it where its page says', () => {
  const prose = (text: string) => ({ text: label(text), post: label('') });
  const board = program('board');
  let b = start(board);
  b = ok(cast(board, 'add', b, { key: label('said-2'), text: label('taken') })).state;
  b = ok(cast(board, 'receive', b, prose('a lamp (lamp) from ann.town.test: hi'), ctx({ caller: 'lamp' }))).state;
  b = ok(cast(board, 'receive', b, prose('again'), ctx({ caller: bob }))).state;
  // One row stands, so the first line would be said-2; that key is held, so it takes said-3.
  assert.equal(
    (get(b, 'rows') as { key: string }[]).map((r) => r.key),
    ['said-2', 'said-3', 'said-4'],
  );
  const long = ok(cast(board, 'receive', b, prose('x'.repeat(1000)))).state;
  assert.is(((get(long, 'rows') as { text: string }[])[3]!.text as string).length, 280);
  const rows = list(Array.from({ length: 64 }, (_, i) => record({ key: label(`k${i}`), text: label(''), by: label(ann) })));
  const full = ok(cast(board, 'put', b, { rows })).state;
  assert.equal(refused(cast(board, 'receive', full, prose('one more'))).refusal, {
    class: 'cardRefused',
    clause: 'full',
    reading: 'a notice board is full (64 rows); a row must come down first',
  });

  const note = program('note');
  let n = ok(cast(note, 'write', start(note), { text: label('Meet at noon.') })).state;
  const heard = ok(cast(note, 'receive', n, prose('see you there'), ctx({ caller: bob })));
  assert.equal(heard.says, ['bob.town.test says to the note: see you there']);
  assert.equal(get(heard.state, 'heard'), ['bob.town.test: see you there']);
  assert.is(note.checkLaw(n, heard.state, ctx({ caller: bob })), undefined, 'what others say is kept beside the text, which the law guards');
  n = heard.state;
  const given = ok(cast(note, 'give', n, { to: label('avatar-bob') }, ctx({ self: 'note-4' })));
  assert.equal(
    given.sends.map((x) => [x.to, x.method, plain(x.argument)]),
    [['avatar-bob', 'receive', { text: 'a note (note-4) from ann.town.test: Meet at noon.', post: '' }]],
  );

  const av = program('avatar');
  let a = start(av);
  for (let i = 1; i <= 10; i++) a = ok(cast(av, 'receive', a, prose(`letter ${i}`), ctx({ caller: 'postbox', owner: bob }))).state;
  assert.equal(get(a, 'inbox'), ['letter 3', 'letter 4', 'letter 5', 'letter 6', 'letter 7', 'letter 8', 'letter 9', 'letter 10']);
  assert.is(av.checkLaw(start(av), a, ctx({ caller: 'postbox', owner: bob })), undefined, 'anyone may write to an inbox');
  const renamed = ok(cast(av, 'rename', a, { name: label('mallory') }, ctx({ caller: ann, owner: bob }))).state;
  assert.is(av.checkLaw(a, renamed, ctx({ caller: ann, owner: bob }))?.name, 'named');
});

test('doors and rooms: only the owner renames a door or describes a room', () => {
  const door = program('door');
  const d = start(door);
  const renamed = ok(cast(door, 'rename', d, { name: label('the trapdoor') }, ctx({ caller: bob, owner: 'town' }))).state;
  assert.is(door.checkLaw(d, renamed, ctx({ caller: bob, owner: 'town' }))?.name, 'named');
  assert.is(door.checkLaw(d, renamed, ctx({ caller: 'town', owner: 'town' })), undefined);
  const room = program('room');
  const r = start(room);
  const told = ok(cast(room, 'describe', r, { description: label('a pit') }, ctx({ caller: bob, owner: 'town' }))).state;
  assert.is(room.checkLaw(r, told, ctx({ caller: bob, owner: 'town' }))?.name, 'told');
});

test('bench: craft makes a card of the kind named, offered by the host; postbox: post queues one send a copy', () => {
  const bench = program('bench');
  const r = ok(cast(bench, 'craft', start(bench), { kind: { tag: 'variant', label: 'note', payload: record({}) } }));
  assert.equal(
    r.makes.map((m) => m.kind),
    ['note'],
  );
  assert.equal(r.says, ['ann.town.test makes a note at a workbench']);
  assert.is(get(r.state, 'made'), 1);
  assert.equal(bench.methods.find((m) => m.name === 'craft')!.template, 'craft kind=<one of lamp, note, board, door, room>');
  const post = program('postbox');
  const sent = ok(cast(post, 'post', start(post), { to: label('avatar-bob'), text: label('hi'), copies: natural(20) }));
  assert.is(sent.sends.length, 20);
  assert.equal(plain(sent.sends[19]!.argument), { text: 'letter 20 of 20 from ann.town.test: hi', post: '' });
  assert.is(get(sent.state, 'posted'), 20);
});

test.run();
