/**
 * The pages for people (spec 4.6) against a real town: each page renders, a guest's words are
 * escaped, a card the reader may not see is answered exactly as a missing one, /play needs the
 * session, and POST /play casts a real turn.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cardDocs } from '../../src/projections/cards.js';
import { worldKey } from '../../src/projections/entries.js';
import { startPagesTown, turn, type PageGuest, type PagesTown } from './support.js';

const pages = suite<{ t: PagesTown; ann: PageGuest; bob: PageGuest }>('pages');

pages.before(async (ctx) => {
  ctx.t = await startPagesTown();
  ctx.ann = await ctx.t.guest('ann');
  ctx.bob = await ctx.t.guest('bob');
});
pages.after(async (ctx) => {
  await ctx.t.close();
});

const html = (r: { status: number; headers: Record<string, unknown> }, status = 200) => {
  assert.is(r.status, status);
  assert.match(String(r.headers['content-type']), /^text\/html; charset=utf-8/);
};

pages('every page renders for a guest and for a reader without a session', async ({ t, ann }) => {
  const want: [string, RegExp][] = [
    ['/', /journal height \d+/],
    ['/town', /the town square[\s\S]*the door to the library/],
    ['/o/lamp', /class="paint" id="paint">[^<]*lamp/],
    ['/o/lamp?show=law,source,receipts', /<section id="source">[\s\S]*<section id="receipts">/],
    ['/inspect/lamp', /<dt>owner<\/dt><dd>nobody<\/dd>[\s\S]*<section id="law">[\s\S]*<section id="source">/],
    ['/kinds', /href="\/inspect\/door-/],
    ['/library', /href="\/library\/lamp"/],
    ['/library/lamp', /<div class="md"><h1>lamp<\/h1>[\s\S]*<table>/],
    ['/lib', /href="\/lib\/lamp"/],
    ['/lib/lamp', /<span id="L1"><a href="#L1" class="ln">1<\/a>/],
    ['/history', /the chronicle: day 1/],
    ['/map', /<table class="map">[\s\S]*door-square-library/],
    ['/map?from=library', /doors out of library/],
  ];
  for (const [p, re] of want) {
    const signed = await t.request('GET', p, { cookie: ann.cookie });
    html(signed);
    assert.match(signed.text, re, `${p} signed in`);
    assert.match(signed.text, /title="ann\.town\.test">ann<\/span> <a href="\/leave">/, `${p} names the guest`);
    const anon = await t.request('GET', p);
    html(anon);
    assert.match(anon.text, re, `${p} without a session`);
  }
  const spells = await t.request('GET', '/inspect/lamp', { cookie: ann.cookie });
  assert.match(spells.text, /<div class="spell" id="spell-light"><form method="post" action="\/play\/lamp"><input type="hidden" name="do" value="light">/);
  html(await t.request('GET', '/style/'));
  const css = await t.request('GET', '/static/town.css');
  assert.is(css.status, 200);
  assert.match(String(css.headers['content-type']), /^text\/css/);
  const js = await t.request('GET', '/static/town.js');
  assert.match(String(js.headers['content-type']), /^text\/javascript/);
  assert.match(js.text, /EventSource/);
  const none = await t.request('GET', '/static/..%2Fpackage.json');
  assert.is(none.status, 404);
});

pages('library, modules and the map answer what they do not hold as missing, and page on', async ({ t }) => {
  html(await t.request('GET', '/library/dragon'), 404);
  html(await t.request('GET', '/lib/dragon'), 404);
  const lamp = await t.request('GET', '/lib/lamp');
  const cid = /cid <code>([^<]+)<\/code>/.exec(lamp.text)?.[1];
  assert.ok(cid, 'a module page names its cid');
  const same = await t.request('GET', `/lib/lamp?cid=${encodeURIComponent(cid!)}`);
  html(same);
  assert.match(same.text, /type Lamp/);
  html(await t.request('GET', '/lib/lamp?cid=bafy-none'), 404);
  const second = await t.request('GET', '/map?page=2');
  html(second);
  assert.match(second.text, /No doors you can see here/);
  assert.match(second.text, /href="\/map\?page=1"/);
  const nowhere = await t.request('GET', '/map?from=no-such-room');
  assert.match(nowhere.text, /No doors you can see here/);
});

pages('the map folds each door of the town; a page of history names the lines of the day', async ({ t, ann }) => {
  await turn(t, ann, 'lamp', 'light', { fields: {} });
  const h = await t.request('GET', '/history', { cookie: ann.cookie });
  assert.match(h.text, /<span class="by">ann<\/span>[^<]*<a href="\/o\/lamp">lamp<\/a>/);
  const day = await t.request('GET', '/history?day=1');
  assert.match(day.text, /the chronicle: day 1/);
  const range = await t.request('GET', '/history?from=1&to=1&page=1');
  assert.match(range.text, /day 1/);
  const bad = await t.request('GET', '/history?day=x');
  assert.is(bad.status, 400, 'a day that is not a number is a bad request, not a 500');
});

pages('what a guest wrote is escaped on every page that shows it', async ({ t, ann }) => {
  const evil = '<script>alert("x")</script>';
  // The town's doors are the town's (their law lets only the owner rename them), so ann crafts
  // a door of her own at the workbench, names it and joins the square to the library with it.
  const made = await turn(t, ann, 'bench', 'craft', { fields: { kind: 'door' } });
  const door: string = made.offers[0];
  assert.is((await turn(t, ann, door, 'rename', { fields: { name: evil } })).status, 'done');
  assert.is((await turn(t, ann, door, 'connect', { fields: { from: 'square', to: 'library' } })).status, 'done');
  const refused = await turn(t, ann, 'door-square-library', 'rename', { fields: { name: evil } });
  assert.is(refused.class, 'lawRefused', "a guest cannot rename the town's door");
  assert.is((await turn(t, ann, 'notice-board', 'receive', { fields: { text: evil, post: '' } })).status, 'done', 'the board pins prose');
  // /town names the guests in each room: ann's avatar is hers to rename.
  assert.is((await turn(t, ann, 'avatar-ann', 'rename', { fields: { name: evil } })).status, 'done');
  for (const p of ['/town', `/o/${door}`, '/map', `/inspect/${door}`, `/play/${door}`, '/o/notice-board']) {
    const r = await t.request('GET', p, { cookie: ann.cookie });
    html(r);
    assert.not.match(r.text, /<script>alert/, `${p} carries no guest markup`);
    assert.match(r.text, /&lt;script&gt;alert\(\\?&quot;x\\?&quot;\)&lt;\/script&gt;/, `${p} shows the words escaped`);
  }
  const say = await t.request('GET', `/play/lamp?say=${encodeURIComponent('</textarea><script>x</script>')}`, { cookie: ann.cookie });
  assert.not.match(say.text, /<script>x/);
  assert.match(say.text, /&lt;\/textarea&gt;&lt;script&gt;x/);
});

pages('a card only its owner may see is, for anyone else, exactly a missing card', async ({ t, ann, bob }) => {
  // Town turns cannot hide a card yet (only scratch cards are the owner's alone), so the read
  // model is given one: the pages read visibility from it.
  const hidden = 'door-workshop-square';
  await t.town.reads
    .collection(cardDocs.name)
    .updateOne({ _id: worldKey('town', hidden) }, { $set: { readers: [ann.principal], visibility: 'owner', owner: ann.principal } });
  for (const p of ['/o/', '/inspect/', '/play/']) {
    const own = await t.request('GET', `${p}${hidden}`, { cookie: ann.cookie });
    html(own);
    const other = await t.request('GET', `${p}${hidden}`, { cookie: bob.cookie });
    html(other, 404);
    const missing = await t.request('GET', `${p}no-such-card`, { cookie: bob.cookie });
    html(missing, 404);
    assert.is(other.text.split(hidden).join('X'), missing.text.split('no-such-card').join('X'), `${p}: the same page`);
  }
  const anon = await t.request('GET', `/o/${hidden}`);
  html(anon, 404);
  for (const p of ['/town', '/map', '/kinds']) {
    const r = await t.request('GET', p, { cookie: bob.cookie });
    assert.not.match(r.text, new RegExp(hidden), `${p} does not name it for bob`);
  }
  const post = await t.request('POST', `/play/${hidden}`, { cookie: bob.cookie, form: { do: 'close' } });
  html(post, 404);
  // Restore it for the tests that follow.
  await t.town.reads
    .collection(cardDocs.name)
    .updateOne({ _id: worldKey('town', hidden) }, { $set: { readers: ['*'], visibility: 'everyone', owner: 'town' } });
});

pages('/play without the session cookie goes to the login page', async ({ t }) => {
  const r = await t.request('GET', '/play/lamp');
  assert.is(r.status, 303);
  assert.is(r.headers.location, `/enter?next=${encodeURIComponent('/play/lamp')}`);
  const p = await t.request('POST', '/play/lamp', { form: { do: 'light' } });
  assert.is(p.status, 303);
});

pages('GET /play/ (where POST /enter lands) sends a signed-in browser to its avatar, others to the login page', async ({ t, ann }) => {
  const r = await t.request('GET', '/play/', { cookie: ann.cookie });
  assert.is(r.status, 303);
  assert.match(String(r.headers.location), /^\/play\/avatar-ann/);
  const page = await t.request('GET', String(r.headers.location), { cookie: ann.cookie });
  assert.is(page.status, 200);
  const out = await t.request('GET', '/play/');
  assert.is(out.status, 303);
  assert.match(String(out.headers.location), /^\/enter/);
});

pages('POST /play casts a real turn: a form of the card, or a reply to receive', async ({ t, ann }) => {
  const before = await t.request('GET', '/AGENTS.md/world/lamp', { token: ann.token });
  const form = await t.request('POST', '/play/lamp', { cookie: ann.cookie, form: { do: 'fill', 'f.measures': '3' } });
  html(form);
  assert.match(
    form.text,
    /<section class="receipt done" id="receipt" role="status" aria-live="polite" tabindex="-1" autofocus><h2>Done<\/h2><p class="line">[^<]+<\/p><dl class="facts"><dt>to<\/dt><dd><a href="\/o\/lamp">lamp<\/a><\/dd><dt>by<\/dt><dd>ann<\/dd><\/dl><details class="exact-receipt"><summary>the exact receipt<\/summary><dl>[\s\S]*<code class="slug">/,
  );
  const after = await t.request('GET', '/AGENTS.md/world/lamp', { token: ann.token });
  assert.ok(after.json.version > before.json.version, 'the lamp moved');
  // `do` carrying its own fields, as a view's act does.
  const act = await t.request('POST', '/play/lamp', { cookie: ann.cookie, form: { do: 'fill?measures=2' } });
  assert.match(act.text, /receipt done/);
  // A reply goes to receive: the lamp hears it as a spell.
  const said = await t.request('POST', '/play/lamp', { cookie: ann.cookie, form: { text: 'fill measures=1' } });
  assert.match(said.text, /receipt done/);
  const last = await t.request('GET', '/AGENTS.md/world/lamp', { token: ann.token });
  assert.is(last.json.version, after.json.version + 2);
  // A refusal is a receipt, shown as one.
  const refused = await t.request('POST', '/play/lamp', { cookie: ann.cookie, form: { do: 'fill', 'f.measures': '12' } });
  html(refused);
  assert.match(refused.text, /receipt refused/);
});

pages('the play page is a game screen: where you stand, who and what is here, the ways out as buttons, what you carry', async ({ t, ann }) => {
  const page = await t.request('GET', '/play/avatar-ann', { cookie: ann.cookie });
  html(page);
  assert.match(page.text, /<h2 id="standing-h">You are in the town square<\/h2>/);
  assert.match(page.text, /Lying here:[\s\S]*the market/);
  for (const room of ['the library', 'the workshop', 'the post office']) assert.match(page.text, `<button>go to ${room}</button>`);
  assert.match(page.text, /You carry:<\/strong>/);
  // one click on a way out moves the avatar; one click takes the lamp, and it is carried
  const went = await t.request('POST', '/play/avatar-ann', { cookie: ann.cookie, form: { do: 'take?thing=lamp' } });
  assert.match(went.text, /receipt done/);
  assert.match(went.text, /You carry:<\/strong> <ul>(<li>(?:(?!<\/div>).)*<\/li>)*<li><a href="\/play\/lamp">lamp<\/a>/);
  assert.match(went.text, /<button>drop lamp<\/button>/);
  const moved = await t.request('POST', '/play/avatar-ann', { cookie: ann.cookie, form: { do: 'go?room=library' } });
  assert.match(moved.text, /You are in the library/);
  assert.match(moved.text, /<button>go to the town square<\/button>/);
  const back = await t.request('POST', '/play/avatar-ann', { cookie: ann.cookie, form: { do: 'go?room=square' } });
  assert.match(back.text, /You are in the town square/);
  await t.request('POST', '/play/avatar-ann', { cookie: ann.cookie, form: { do: 'drop?thing=lamp' } });
});

pages('POST /play refuses what is not one of the offered forms, and forms of other sites', async ({ t, ann }) => {
  const height = t.town.world.height;
  const notOffered = await t.request('POST', '/play/lamp', { cookie: ann.cookie, form: { do: 'become?kind=note' } });
  html(notOffered, 400);
  assert.is(t.town.world.height, height, 'no turn was spent');
  const cross = await t.request('POST', '/play/lamp', { cookie: ann.cookie, form: { do: 'light' }, headers: { origin: 'http://evil.example' } });
  html(cross, 403);
  assert.is(t.town.world.height, height, 'no turn was spent');
  const neither = await t.request('POST', '/play/lamp', { cookie: ann.cookie, form: { what: 'x' } });
  html(neither, 400);
  const unspellable = await t.request('GET', '/play/bad%20id', { cookie: ann.cookie });
  html(unspellable, 400);
});

pages('what a guest writes is public: a note given with the lamp is read on /history without a session; forms say so', async ({ t, ann, bob }) => {
  await t.request('POST', '/play/avatar-ann', { cookie: ann.cookie, form: { do: 'take?thing=lamp' } });
  await t.request('POST', '/play/avatar-bob', { cookie: bob.cookie, form: { do: 'go?room=square' } });
  await t.request('POST', '/play/avatar-ann', { cookie: ann.cookie, form: { do: 'go?room=square' } });
  const given = await turn(t, ann, 'lamp', 'give', { fields: { to: 'avatar-bob', note: 'meet me by the well' } });
  assert.is(given.status, 'done', JSON.stringify(given));
  let seen = '';
  for (let i = 0; i < 40 && !seen.includes('meet me by the well'); i++) {
    seen = (await t.request('GET', '/history')).text;
    if (!seen.includes('meet me by the well')) await new Promise((r) => setTimeout(r, 50));
  }
  assert.match(seen, 'meet me by the well', 'the chronicle shows the note to a reader without a session');
  const form = await t.request('GET', '/play/lamp', { cookie: ann.cookie });
  assert.match(form.text, /text, up to 80 characters \(may be empty\); anyone reading the town can see it/);
});

pages.run();
