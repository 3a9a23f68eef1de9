/**
 * End to end over HTTP, a fresh town as the quick start opens it (invited, the genesis town),
 * two guests: ann makes a card at the workshop, collects the offer and gives it to bob, whose
 * avatar receives it; letters past the sixteen the host delivers after a turn wait in the queue
 * until bob delivers them; and every refusal class of spec 7.2 a guest can meet is met, in the
 * town or in a scratch world forked from it.
 *
 * `quiet` is met twice: in a scratch world forked from the town (the guest is its opener) and in
 * the town itself once the town's opener (the host) quiets the guest through the operator's
 * command (third test).
 *
 * Classes of 7.2 not reached here, and why:
 * - capacity: the host's limits (1,000,000 cards, 10,000 queued sends) are far past what a test
 *   can fill in seconds under the per-guest rate limits; the kernel's own tests shrink them.
 * - quota: spec 2.7 and 7.2 make the hourly turn quota an open town's alone, and the quick
 *   start opens an invited town; the second test below meets it on a fresh open town.
 * - staleRoot: a turn whose roots move while it writes; the town decides turns one after another,
 *   so a guest cannot make one happen on purpose (it is a transient, resend-the-same-turn class).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { settingsFromEnv } from '../../src/config.js';
import { createLimiters } from '../../src/contract/rate-limit.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { runOperator } from '../../src/cli/operator.js';
import { openerQuiet } from '../../src/commands/opener.js';
import { issueInvitation } from '../../src/identity/operator.js';
import { openTown, type Town } from '../../src/town.js';

interface Guest {
  name: string;
  principal: string;
  token: string;
}

interface Walk {
  town: Town;
  server: RunningServer;
  base: string;
  dir: string;
}

const clock = () => Date.UTC(2026, 10, 26, 12, 0, 0);

async function open(o: { open?: boolean; turnQuota?: number } = {}): Promise<Walk> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-genesis-'));
  const town = await openTown({
    settings: { ...settingsFromEnv({ TOWN_DATA: dir, ...(o.open ? { TOWN_OPEN: '1' } : {}) }), signing: false },
    clock,
    // This walk is about the town, not the rate limits: lift them.
    limiters: createLimiters(clock, {
      credential: [1e9, 60],
      identity: [1e9, 60],
      page: [1e9, 60],
      xrpc: [1e9, 60],
      session: [1e9, 60],
      signedIn: [1e9, 60],
    }),
    ...(o.turnQuota !== undefined ? { turnQuota: o.turnQuota } : {}),
  });
  const server = await startServer(town.app, { port: 0, host: '127.0.0.1', closeGraceMs: 500 });
  return { town, server, dir, base: `http://127.0.0.1:${server.address.port}` };
}

async function close(w: Walk): Promise<void> {
  await w.server.close();
  await w.town.close();
  fs.rmSync(w.dir, { recursive: true, force: true });
}

async function call(w: Walk, g: Guest | undefined, method: string, p: string, body?: unknown): Promise<any> {
  const headers: Record<string, string> = {};
  if (g) headers.authorization = `Bearer ${g.token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(w.base + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json();
  assert.is(res.status, 200, `${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function accept(w: Walk, code: string, name: string): Promise<Guest> {
  const r = await call(w, undefined, 'POST', '/AGENTS.md/accept', { code, name });
  const g = { name, principal: r.principal, token: r.credential };
  // The town makes the avatar before it answers the admission: the guest's first read sees it.
  const res = await fetch(`${w.base}/AGENTS.md/world/avatar-${name}`, { headers: { authorization: `Bearer ${g.token}` } });
  assert.is(res.status, 200, `avatar-${name} is readable by its guest as soon as the admission is answered: ${await res.text()}`);
  return g;
}

/**
 * Reads are projections, and a read waits only for the reader's own turns: what another guest's
 * turn did shows a moment later, so such a read is asked again until it holds.
 */
async function until(w: Walk, g: Guest, p: string, holds: (r: any) => boolean): Promise<any> {
  let r: any;
  for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((res) => setTimeout(res, 25))) {
    r = await call(w, g, 'GET', p);
    if (holds(r)) return r;
  }
  assert.unreachable(`GET ${p} never came to hold: ${JSON.stringify(r)}`);
}

let n = 0;
/** A turn: fields (a plain object), or a whole body (spell, argument, if …); a fresh intent each. */
const turn = (w: Walk, g: Guest, object: string, method: string, body: Record<string, unknown> = {}, where = '') =>
  call(w, g, 'POST', `/AGENTS.md/${where}world/${encodeURIComponent(object)}/${method}`, { intent: `walk-${++n}`, ...body });

const field = (card: any, name: string) => card.state.fields.find((f: { name: string }) => f.name === name)?.value;
const texts = (v: any): string[] => v.items.map((x: { value: string }) => x.value);

test('a fresh town, two guests: make, collect, give, receive, queue, deliver, and every refusal a guest can meet', async () => {
  const w = await open();
  try {
    assert.ok(w.town.firstInvitation, 'a fresh town prints its first invitation');
    assert.is(w.town.config.open, false, 'the quick start opens an invited town');
    const ann = await accept(w, w.town.firstInvitation!, 'ann');
    const { code } = await issueInvitation(w.town.events, clock, { guest: null, lifetimeMs: 86_400_000 });
    const bob = await accept(w, code, 'bob');

    // What the town card tells a guest to do is what works.
    const told = await turn(w, ann, 'town', 'receive', { fields: { text: 'how do I make things?' } });
    assert.match(told.line, 'cast craft kind=<lamp, note, board, door or room> at the bench');
    const bench = await call(w, ann, 'GET', '/AGENTS.md/world/bench');
    assert.is(bench._actions.craft, 'craft kind=<one of lamp, note, board, door, room>');
    const workshop = await call(w, ann, 'GET', '/AGENTS.md/world/workshop');
    assert.equal(
      (await call(w, ann, 'GET', '/AGENTS.md/world/workshop/card')).here,
      ['bench', 'door-workshop-square'],
      'what lies in a room is read from places',
    );
    // Genesis drops a seed field the kind cannot take: the room's words must have fitted.
    assert.match(field(workshop, 'description').value, 'craft kind=<lamp, note, board, door or room> at the bench');
    assert.match(
      field(await call(w, ann, 'GET', '/AGENTS.md/world/post-office'), 'description').value,
      'the postbox sends them on, sixteen after each turn and the rest after the next',
    );

    // Make at the workshop: the bench's craft, and the host's `make <kind>` cast at the workshop.
    const crafted = await turn(w, ann, 'bench', 'craft', { fields: { kind: 'note' } });
    assert.is(crafted.status, 'done');
    assert.is(crafted.line, 'ann.localhost makes a note at the workbench');
    const note: string = crafted.offers[0];
    assert.match(note, /^note-\d+$/);
    const made = await turn(w, ann, 'workshop', 'receive', { spell: 'make lamp' });
    assert.is(made.status, 'done');
    const lamp: string = made.offers[0];
    assert.match(lamp, /^lamp-\d+$/);

    // Collect the offers: both cards, each with the height it was made at; bob has none.
    const offers = await call(w, ann, 'GET', '/AGENTS.md/offers');
    assert.equal(
      offers.offers.map((o: { object: string; kind: string }) => [o.object, o.kind]),
      [
        [note, 'note'],
        [lamp, 'lamp'],
      ],
    );
    const after = await call(w, ann, 'GET', `/AGENTS.md/offers?after=${offers.offers[0].height}&compact=1`);
    assert.equal(after.offers, [lamp]);
    assert.equal((await call(w, bob, 'GET', '/AGENTS.md/offers')).offers, []);

    // Give it to bob: ann writes the note and gives it; bob's avatar receives it.
    assert.is((await turn(w, ann, note, 'write', { fields: { text: 'Meet me at the well.' } })).status, 'done');
    const gift = await turn(w, ann, note, 'give', { fields: { to: 'avatar-bob' } });
    assert.is(gift.status, 'done');
    assert.equal(
      gift.delivered.map((d: { status: string; object: string; method: string }) => [d.status, d.object, d.method]),
      [['done', 'avatar-bob', 'receive']],
    );
    const line = `a note (${note}) from ann.localhost: Meet me at the well.`;
    const given = await call(w, ann, 'GET', `/AGENTS.md/world/${note}/card`);
    assert.equal([given.place, given.owner], ['avatar-bob', 'bob'], 'given, not copied: bob holds the note and it is his');
    const bobs = await until(w, bob, '/AGENTS.md/world/avatar-bob', (r) => texts(field(r, 'inbox')).length > 0);
    assert.equal(texts(field(bobs, 'inbox')), [line]);
    const card = await call(w, bob, 'GET', '/AGENTS.md/world/avatar-bob/card');
    assert.ok(JSON.stringify(card).includes(`bob receives: ${line}`), 'the avatar says what it received');
    // The lamp, given to the notice board, is pinned (the board hears prose).
    const toBoard = await turn(w, ann, lamp, 'give', { fields: { to: 'notice-board', note: 'for the square' } });
    assert.equal(
      toBoard.delivered.map((d: { status: string; line: string }) => [d.status, d.line]),
      [['done', `${lamp} pins said-1 to the notice board`]],
    );

    // A queued send, delivered on demand: twenty letters, sixteen delivered after the turn.
    const posted = await turn(w, ann, 'postbox', 'post', { fields: { to: 'avatar-bob', text: 'hello', copies: 20 } });
    assert.is(posted.delivered.length, 16);
    // Reads are projections: a guest's read waits for the guest's own turns, so ann asks.
    // (Bounded: a read waits two seconds at most for its projection; a slow machine may need more.)
    const waiting = await until(w, ann, '/AGENTS.md/pending', (r) => r.count === 4);
    assert.is(waiting.count, 4);
    assert.ok(waiting.pending.every((s: { from: string; to: string; yours: boolean }) => s.from === 'postbox' && s.to === 'avatar-bob' && s.yours));
    const delivered = await call(w, bob, 'POST', '/AGENTS.md/deliver');
    assert.is(delivered.delivered, 4);
    assert.equal(
      delivered.receipts.map((r: { line: string }) => r.line),
      [17, 18, 19, 20].map((i) => `bob receives: letter ${i} of 20 from ann.localhost: hello`),
    );
    assert.is((await call(w, bob, 'GET', '/AGENTS.md/pending')).count, 0);
    const inbox = texts(field(await call(w, bob, 'GET', '/AGENTS.md/world/avatar-bob'), 'inbox'));
    assert.is(inbox.length, 8, 'an inbox keeps the newest eight');
    assert.is(inbox[7], 'letter 20 of 20 from ann.localhost: hello');

    // Every refusal class of 7.2 a guest can meet. In the town:
    const classOf = async (object: string, method: string, body: Record<string, unknown> = {}, where = '') => {
      const r = await turn(w, ann, object, method, body, where);
      assert.is(r.status, 'refused', `${object}.${method}: ${JSON.stringify(r)}`);
      return r;
    };
    const met = new Map<string, any>();
    const meet = async (cls: string, object: string, method: string, body: Record<string, unknown> = {}, where = '') => {
      const r = await classOf(object, method, body, where);
      assert.is(r.class, cls, `${object}.${method} should be refused ${cls}: ${JSON.stringify(r)}`);
      met.set(cls, r);
      return r;
    };
    await turn(w, ann, 'notice-board', 'add', { fields: { key: 'market', text: 'at noon' } });
    await meet('keyTaken', 'notice-board', 'add', { fields: { key: 'market', text: 'again' } });
    await meet('absentItem', 'notice-board', 'update', { fields: { key: 'fair', text: 'x' } });
    // Doors and the square are the town's: their law refuses a guest.
    const door = await meet('lawRefused', 'door-square-library', 'rename', { fields: { name: 'the back door' } });
    assert.is(door.clause, 'named');
    const square = await classOf('square', 'describe', { fields: { description: 'a pit' } });
    assert.equal([square.class, square.clause], ['lawRefused', 'told']);
    const avatar = await classOf('avatar-bob', 'rename', { fields: { name: 'mallory' } });
    assert.equal([avatar.class, avatar.clause], ['lawRefused', 'named']);
    // quiet is the opener's power; the town's opener is the host, so a guest is refused `opener`.
    const quiet = await meet('badSpell', 'lamp', 'quiet', { fields: { guest: 'bob', until: '2027-01-01T00:00Z' } });
    assert.is(quiet.clause, 'opener');
    await meet('noMethod', 'lamp', 'polish');
    // A form's field out of its bounds is a bad spell; a method with no form given fields is not
    // what it takes.
    const over = await classOf('lamp', 'fill', { fields: { measures: 12 } });
    assert.equal([over.class, over.clause], ['badSpell', 'badValue']);
    const formless = await meet('typeMismatch', 'notice-board', 'put', { fields: { rows: [] } });
    assert.ok(formless.expected);
    assert.is((await turn(w, ann, 'lamp', 'light')).status, 'done');
    const lit = await meet('cardRefused', 'lamp', 'light');
    assert.is(lit.clause, 'lit');
    await meet('moved', 'lamp', 'fill', { fields: { measures: 1 }, if: [{ object: 'lamp', version: 1 }] });
    const first = await call(w, ann, 'POST', '/AGENTS.md/world/lamp/fill', { intent: 'ann-once', fields: { measures: 1 } });
    assert.is(first.status, 'done');
    const again = await call(w, ann, 'POST', '/AGENTS.md/world/lamp/fill', { intent: 'ann-once', fields: { measures: 2 } });
    assert.is(again.class, 'duplicateIdentity');
    met.set('duplicateIdentity', again);
    const lost = await meet('unknownObject', lamp, 'give', { fields: { to: 'no-such-card' } });
    assert.match(lost.reason, 'no-such-card');
    assert.is((await call(w, ann, 'GET', `/AGENTS.md/world/${lamp}/card`)).place, 'notice-board', 'a refused give leaves the lamp where it was');
    // On a board of her own (crafted at the bench) ann may replace every row: one key twice.
    const board: string = (await turn(w, ann, 'bench', 'craft', { fields: { kind: 'board' } })).offers[0];
    const row = (key: string) => ({
      tag: 'record',
      fields: [
        { name: 'key', value: { tag: 'label', value: key } },
        { name: 'text', value: { tag: 'label', value: '' } },
        { name: 'by', value: { tag: 'label', value: ann.principal } },
      ],
    });
    await meet('duplicateKey', board, 'put', {
      argument: { tag: 'record', fields: [{ name: 'rows', value: { tag: 'list', items: [row('a'), row('a')] } }] },
    });
    // A note becoming a lamp: the state does not carry over and lamp has no migrate.
    const kept: string = (await turn(w, ann, 'bench', 'craft', { fields: { kind: 'note' } })).offers[0];
    const become = await meet('programRefused', kept, 'become', { fields: { kind: 'lamp' } });
    assert.is(become.clause, 'stateType');

    // In a scratch world forked from the town, where ann is the opener and writes code:
    const opened = await call(w, ann, 'POST', '/AGENTS.md/scratch', { name: 'lab', from: { world: 'town' } });
    assert.is(opened.status, 'scratch');
    const source = [
      'type S:',
      '  n: Natural',
      '',
      'def initial() -> S:',
      '  return S { n: 0 }',
      '',
      'spell forever(self: S) -> S:',
      '  let i = 0',
      '  while true:',
      '    i = i + 1',
      '  return self { n: i }',
      '',
      'spell less(self: S) -> S:',
      '  return self { n: self.n - 1 }',
      '',
      'spell ping(self: S) -> S:',
      '  send this.ping {}',
      '  return self',
      '',
    ].join('\n');
    const created = await call(w, ann, 'POST', '/AGENTS.md/scratch/lab/objects', { object: 'spin', source, entry: 'initial', intent: 'make-spin' });
    assert.is(created.status, 'done', JSON.stringify(created));
    const again2 = await call(w, ann, 'POST', '/AGENTS.md/scratch/lab/objects', { object: 'spin', source, entry: 'initial', intent: 'make-spin-2' });
    assert.is(again2.class, 'requiredAbsence');
    met.set('requiredAbsence', again2);
    const spent = await meet('budget', 'spin', 'forever', {}, 'scratch/lab/');
    assert.is(spent.reason, 'ticks');
    await meet('evaluation', 'spin', 'less', {}, 'scratch/lab/');
    // A card that sends itself a ping on every ping: the chain passes the depth allowance.
    const pinged = await turn(w, ann, 'spin', 'ping', {}, 'scratch/lab/');
    assert.is(pinged.status, 'done');
    const deliveries = [...(pinged.delivered ?? [])];
    for (let i = 0; i < 4 && !deliveries.some((d) => d.class === 'budgetExhausted'); i++) {
      const more = await call(w, ann, 'POST', '/AGENTS.md/scratch/lab/deliver');
      deliveries.push(...(more.receipts ?? []));
    }
    const exhausted = deliveries.find((d) => d.class === 'budgetExhausted');
    assert.ok(exhausted, JSON.stringify(deliveries.map((d) => [d.status, d.class])));
    assert.is(exhausted.clause, 'depth');
    met.set('budgetExhausted', exhausted);
    // ann, the scratch world's opener, quiets herself there: her next turn is refused `quiet`.
    const quieted = await turn(w, ann, 'spin', 'quiet', { fields: { guest: ann.principal, until: '2027-01-01T00:00Z', reading: 'a pause' } }, 'scratch/lab/');
    assert.is(quieted.status, 'done', JSON.stringify(quieted));
    const hushed = await meet('quiet', 'spin', 'less', {}, 'scratch/lab/');
    assert.is(hushed.reason, 'a pause');
    assert.is(hushed.next, Date.UTC(2027, 0, 1));

    assert.equal(
      [...met.keys()].sort(),
      [
        'absentItem',
        'badSpell',
        'budget',
        'budgetExhausted',
        'cardRefused',
        'duplicateIdentity',
        'duplicateKey',
        'evaluation',
        'keyTaken',
        'lawRefused',
        'moved',
        'noMethod',
        'programRefused',
        'quiet',
        'requiredAbsence',
        'typeMismatch',
        'unknownObject',
      ],
      'every class of 7.2 but capacity, quota (next test) and staleRoot (see the header)',
    );
  } finally {
    await close(w);
  }
});

test('a market day over HTTP: five guests, an offer collected and sold, a bounty that needs two of them, every coin counted', async () => {
  const w = await open();
  try {
    const names = ['ann', 'bob', 'cy', 'dee', 'eve'];
    const guests: Guest[] = [await accept(w, w.town.firstInvitation!, 'ann')];
    for (const name of names.slice(1))
      guests.push(await accept(w, (await issueInvitation(w.town.events, clock, { guest: null, lifetimeMs: 86_400_000 })).code, name));
    const [ann, bob, cy, dee, eve] = guests as [Guest, Guest, Guest, Guest, Guest];
    // The market's state as the acting guest reads it right after its turn: purses and escrow
    // add up to what was minted, and minted is 10 a purse and the town's bounties met.
    const coins = async (g: Guest) => {
      const m = await call(w, g, 'GET', '/AGENTS.md/world/market');
      const purses = new Map<string, number>(field(m, 'coins').items.map((e: any) => [e.fields[0].value.value, Number(e.fields[1].value.value)]));
      const escrow = field(m, 'bounties').items.reduce((t: number, b: any) => {
        const f = (n: string) => b.fields.find((x: { name: string }) => x.name === n).value.value;
        return f('by') === 'town' ? t : t + Number(f('reward')) * Number(f('crew'));
      }, 0);
      const minted = Number(field(m, 'minted').value);
      assert.is([...purses.values()].reduce((t, n) => t + n, 0) + escrow, minted, 'every coin minted is in a purse or escrow');
      assert.is(minted, 10 * field(m, 'granted').items.length + Number(field(m, 'townPaid').value));
      return (who: Guest) => purses.get(who.principal) ?? 0;
    };
    const act = async (g: Guest, object: string, method: string, fields: Record<string, unknown> = {}) => {
      const r = await turn(w, g, object, method, { fields });
      await coins(g);
      return r;
    };
    const done = async (g: Guest, object: string, method: string, fields: Record<string, unknown> = {}) => {
      const r = await act(g, object, method, fields);
      assert.is(r.status, 'done', `${g.name} ${object}.${method}: ${JSON.stringify(r)}`);
      return r;
    };
    for (const g of guests) await done(g, 'market', 'purse');

    // ann crafts a note at the workshop, collects the offer, and sells it in the square
    await done(ann, 'avatar-ann', 'go', { room: 'workshop' });
    await done(ann, 'bench', 'craft', { kind: 'note' });
    const offered = await call(w, ann, 'GET', '/AGENTS.md/offers?compact=1');
    const note: string = offered.offers.at(-1);
    await done(ann, 'avatar-ann', 'go', { room: 'square' });
    await done(ann, 'market', 'sell', { item: note, price: 4 });
    // bob takes it up: the note and its price change hands in one turn
    await done(bob, 'market', 'buy', { item: note, to: 'avatar-bob' });
    const bought = await call(w, bob, 'GET', `/AGENTS.md/world/${note}/card`);
    assert.equal([bought.place, bought.owner], ['avatar-bob', 'bob']);
    const after = await coins(bob);
    assert.equal([after(ann), after(bob)], [14, 6]);

    // the town's bounty needs two guests
    await done(cy, 'market', 'join', { key: 'lamp-to-market' });
    await done(cy, 'avatar-cy', 'take', { thing: 'lamp' });
    const alone = await act(cy, 'market', 'meet', { key: 'lamp-to-market' });
    assert.equal([alone.class, alone.clause], ['cardRefused', 'crew']);
    await done(dee, 'market', 'join', { key: 'lamp-to-market' });
    await done(cy, 'market', 'meet', { key: 'lamp-to-market' });
    const paid = await coins(cy);
    assert.equal([paid(cy), paid(dee), paid(eve)], [15, 15, 10]);

    // the town answers from the market's news (delivered after the turn)
    const told = await until(w, eve, '/AGENTS.md/world/town', (r) => String(field(r, 'goods').value).includes('lamp for 3 coins'));
    assert.match(field(told, 'bounties').value, 'no open bounties');
    const answer = await turn(w, eve, 'town', 'receive', { fields: { text: 'what can I buy at the market?' } });
    assert.match(answer.line, 'lamp for 3 coins');
  } finally {
    await close(w);
  }
});

test("the town's opener (the host) quiets a guest through the operator's command: her turns are refused `quiet` until then", async () => {
  const w = await open();
  try {
    const ann = await accept(w, w.town.firstInvitation!, 'ann');
    const out: string[] = [];
    const err: string[] = [];
    const io = { store: w.town.events, clock, out: (l: string) => out.push(l), err: (l: string) => err.push(l) };
    // Without the running town there is no one to cast it.
    assert.is(await runOperator('quiet', ['ann', 'until', '2027-01-01T00:00Z'], io), 1);
    assert.match(err.pop()!, 'quiet is cast by the running town');
    const withTown = { ...io, quiet: openerQuiet(w.town.world, clock) };
    assert.is(await runOperator('quiet', ['ann', 'until', 'tomorrow'], withTown), 1);
    assert.match(err.pop()!, 'refused badSpell badValue: until: "tomorrow" is not a clock');
    assert.is(await runOperator('quiet', ['ann', 'until'], withTown), 2);
    assert.is(await runOperator('quiet', ['ann', 'until', '2027-01-01T00:00Z', '--', 'flooding', 'the', 'board'], withTown), 0, err.join('\n'));
    assert.equal(out, ['ann.localhost is quiet until 2027-01-01T00:00:00.000Z: flooding the board']);
    const r = await turn(w, ann, 'lamp', 'light');
    assert.equal([r.status, r.class, r.reason, r.next], ['refused', 'quiet', 'flooding the board', Date.UTC(2027, 0, 1)]);
    assert.is(r.receipt.slug, null, 'nothing journaled: the intent stays unspent');
  } finally {
    await close(w);
  }
});

test('a fresh open town: the hourly quota refuses the turn past it, `quota` with the clock to retry', async () => {
  const w = await open({ open: true, turnQuota: 2 });
  try {
    const { code } = await issueInvitation(w.town.events, clock, { guest: null, lifetimeMs: 86_400_000 });
    const cy = await accept(w, code, 'cy');
    assert.is((await turn(w, cy, 'lamp', 'fill', { fields: { measures: 1 } })).status, 'done');
    assert.is((await turn(w, cy, 'lamp', 'fill', { fields: { measures: 1 } })).status, 'done');
    const r = await turn(w, cy, 'lamp', 'fill', { fields: { measures: 1 } });
    assert.equal([r.status, r.class], ['refused', 'quota']);
    assert.is(r.next, Date.UTC(2026, 10, 26, 13));
  } finally {
    await close(w);
  }
});

test.run();
