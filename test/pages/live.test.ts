/**
 * The server-sent event channels (spec 6) against a real town: `moved` after a turn, resuming
 * by `?h=` and Last-Event-ID, `view` events for a card with a view, 404 for a thing without
 * one, the 17th stream refused 503, and each stream closed after its hold time.
 */
import http from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startPagesTown, turn, type PageGuest, type PagesTown } from './support.js';

interface Frame {
  event?: string;
  id?: string;
  data: string;
}

interface Stream {
  status: number;
  headers: http.IncomingHttpHeaders;
  frames: Frame[];
  ended: Promise<void>;
  /** Resolves with the first frame that passes, or rejects after `ms`. */
  next(pass: (f: Frame) => boolean, ms?: number): Promise<Frame>;
  close(): void;
  body: string;
}

/** Opens an event stream and parses its frames as they come. */
function open(base: string, p: string, headers: Record<string, string> = {}): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${p}`, { headers: { accept: 'text/event-stream', ...headers }, agent: false }, (res) => {
      let buffer = '';
      const waiters: { pass: (f: Frame) => boolean; done: (f: Frame) => void }[] = [];
      let endedResolve!: () => void;
      const s: Stream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        frames: [],
        body: '',
        ended: new Promise<void>((r) => (endedResolve = r)),
        next(pass, ms = 3000) {
          const hit = s.frames.find(pass);
          if (hit) return Promise.resolve(hit);
          return new Promise((ok, fail) => {
            const timer = setTimeout(() => fail(new Error(`no such frame on ${p} within ${ms} ms; got ${JSON.stringify(s.frames)}`)), ms);
            waiters.push({
              pass,
              done: (f) => {
                clearTimeout(timer);
                ok(f);
              },
            });
          });
        },
        close: () => req.destroy(),
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        s.body += chunk;
        buffer += chunk;
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const f: Frame = { data: '' };
          let any = false;
          for (const line of block.split('\n')) {
            const m = /^(event|id|data): ?(.*)$/.exec(line);
            if (!m) continue;
            any = true;
            if (m[1] === 'data') f.data += m[2];
            else f[m[1] as 'event' | 'id'] = m[2];
          }
          if (!any) continue;
          s.frames.push(f);
          for (const w of [...waiters])
            if (w.pass(f)) {
              waiters.splice(waiters.indexOf(w), 1);
              w.done(f);
            }
        }
      });
      res.on('end', () => endedResolve());
      res.on('close', () => endedResolve());
      resolve(s);
    });
    req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(e)));
    req.setTimeout(10_000, () => req.destroy());
  });
}

const live = suite<{ t: PagesTown; ann: PageGuest; bob: PageGuest }>('live');

live.before(async (ctx) => {
  // Every client of these tests is one address: its share is lifted to the whole town's 16 here
  // (live-share.test.ts holds the shares as the town sets them).
  ctx.t = await startPagesTown({ holdMs: 1500, perAddress: 16 });
  ctx.ann = await ctx.t.guest('ann');
  ctx.bob = await ctx.t.guest('bob');
});
live.after(async (ctx) => {
  await ctx.t.close();
});

live('/live sends `moved` with the journal height as id and data after a turn', async ({ t, ann }) => {
  const before = t.town.world.height;
  const s = await open(t.base, '/live', { cookie: ann.cookie });
  try {
    assert.is(s.status, 200);
    assert.match(String(s.headers['content-type']), /^text\/event-stream/);
    await turn(t, ann, 'lamp', 'light', { fields: {} });
    const f = await s.next((x) => x.event === 'moved');
    assert.is(f.id, f.data);
    assert.ok(Number(f.id) > before, `height ${f.id} past ${before}`);
    assert.is(Number(f.id), t.town.world.height);
  } finally {
    s.close();
  }
});

live('a page drawn at a height (data-live) hears `moved` only once the journal moves past it', async ({ t, ann }) => {
  const page = await t.request('GET', '/town', { cookie: ann.cookie });
  const drawn = /<body data-live="(\d+)"/.exec(page.text)?.[1];
  assert.ok(drawn, 'the town page says the height it was drawn at');
  assert.is(Number(drawn), t.town.world.height);
  const s = await open(t.base, `/live?h=${drawn}`, { cookie: ann.cookie });
  try {
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(s.frames, []);
    await turn(t, ann, 'lamp', 'douse', { fields: {} }).catch(() => turn(t, ann, 'lamp', 'light', { fields: {} }));
    const f = await s.next((x) => x.event === 'moved');
    assert.ok(Number(f.id) > Number(drawn));
  } finally {
    s.close();
  }
});

live('/live resumes from ?h= and from Last-Event-ID; a reader without a session is refused 401', async ({ t, ann }) => {
  const height = t.town.world.height;
  const cookie = ann.cookie;
  const behind = await open(t.base, '/live?h=0', { cookie });
  const f = await behind.next((x) => x.event === 'moved');
  assert.is(f.data, String(height), 'a page drawn before now hears at once where the journal is');
  behind.close();
  const resumed = await open(t.base, '/live', { cookie, 'last-event-id': '1' });
  assert.is((await resumed.next((x) => x.event === 'moved')).id, String(height));
  resumed.close();
  const current = await open(t.base, `/live?h=${height}`, { cookie });
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(current.frames, [], 'nothing moved since the page was drawn');
  current.close();
  // A reconnecting EventSource sends the page's URL again with the last id it heard: the id wins.
  const reconnected = await open(t.base, '/live?h=0', { cookie, 'last-event-id': String(height) });
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(reconnected.frames, [], 'nothing moved since the last event heard');
  reconnected.close();
  const bad = await open(t.base, '/live?h=x', { cookie });
  assert.is(bad.status, 400);
  // Spec 4.6: the streams are cookie routes. Without a session nothing is held open.
  for (const p of ['/live', '/live/lamp']) {
    const anon = await open(t.base, p);
    assert.is(anon.status, 401, p);
    await anon.ended;
    assert.is(JSON.parse(anon.body).class, 'unauthenticated');
  }
});

live('/live/{object} sends the view drawn again, id the version, after the thing moves', async ({ t, ann }) => {
  const card = await t.request('GET', '/AGENTS.md/world/lamp', { token: ann.token });
  const s = await open(t.base, `/live/lamp?v=${card.json.version}`, { cookie: ann.cookie });
  try {
    assert.is(s.status, 200);
    await turn(t, ann, 'lamp', 'fill', { fields: { measures: 2 } });
    const f = await s.next((x) => x.event === 'view');
    assert.is(Number(f.id), card.json.version + 1);
    const data = JSON.parse(f.data);
    assert.is(data.object, 'lamp');
    assert.is(data.version, card.json.version + 1);
    assert.type(data.paint, 'string');
  } finally {
    s.close();
  }
  const old = await open(t.base, '/live/lamp?v=0', { cookie: ann.cookie });
  assert.ok(Number((await old.next((x) => x.event === 'view')).id) > 0, 'a page drawn at an older version is redrawn at once');
  old.close();
});

live('/live/{object}: 404 for a thing with no view or no such thing, 403 for a view that refuses', async ({ t, ann, bob }) => {
  const none = await open(t.base, '/live/spinner', { cookie: ann.cookie });
  assert.is(none.status, 404);
  await none.ended;
  assert.is(JSON.parse(none.body).class, 'unknown');
  const missing = await open(t.base, '/live/no-such-thing', { cookie: ann.cookie });
  assert.is(missing.status, 404);
  const shy = await open(t.base, '/live/shy', { cookie: bob.cookie });
  assert.is(shy.status, 403);
  const shown = await open(t.base, '/live/shy', { cookie: ann.cookie });
  assert.is(shown.status, 200);
  shown.close();
});

live('at most 16 streams at once: the 17th is answered 503, and a closed one frees its place', async ({ t, ann, bob }) => {
  // Four sessions holding their share of four each fill the town's sixteen.
  const cookies = [ann.cookie, bob.cookie, (await t.guest('cat')).cookie, (await t.guest('dan')).cookie];
  // Earlier tests' streams are closed by the client; wait until the town has seen them go.
  const streams: Stream[] = [];
  try {
    for (let i = 0; i < 16; i++) {
      const s = await open(t.base, '/live', { cookie: cookies[i % 4]! });
      if (s.status !== 200) {
        s.close();
        await new Promise((r) => setTimeout(r, 50));
        i--;
        continue;
      }
      streams.push(s);
    }
    const over = await open(t.base, '/live/lamp', { cookie: ann.cookie });
    assert.is(over.status, 503);
    await over.ended;
    const env = JSON.parse(over.body);
    assert.is(env.class, 'busy');
    assert.ok(over.headers['retry-after']);
    const freed = streams.length - 1;
    streams.pop()!.close();
    let again: Stream | undefined;
    for (let tries = 0; tries < 40; tries++) {
      again = await open(t.base, '/live', { cookie: cookies[freed % 4]! });
      if (again.status === 200) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.is(again!.status, 200);
    streams.push(again!);
  } finally {
    for (const s of streams) s.close();
  }
});

live('a stream is closed by the town after its hold time', async ({ t, ann }) => {
  await new Promise((r) => setTimeout(r, 200));
  const s = await open(t.base, '/live', { cookie: ann.cookie });
  const started = Date.now();
  assert.is(s.status, 200);
  await s.ended;
  assert.ok(Date.now() - started >= 1000, 'held, not dropped at once');
  assert.match(s.body, /^retry: \d+/);
});

live.run();
