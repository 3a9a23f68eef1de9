/**
 * No one session or address holds more than its share of the town's 16 live streams: a session
 * holds at most 4, an address 8, each refused 429 beyond with Retry-After, and a stream
 * closed gives its place back.
 */
import http from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { limits } from '../../src/contract/limits.js';
import { startPagesTown, type PagesTown } from './support.js';

interface Opened {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Promise<string>;
  close(): void;
}

function open(base: string, p: string, cookie: string): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${p}`, { headers: { accept: 'text/event-stream', cookie }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      const body = new Promise<string>((r) => res.on('close', () => r(text)));
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body, close: () => req.destroy() });
    });
    req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(e)));
  });
}

const share = suite<{ t: PagesTown }>('live shares');

share.before(async (ctx) => {
  ctx.t = await startPagesTown({ holdMs: 20_000 });
});
share.after(async (ctx) => {
  await ctx.t.close();
});

share('a session holds at most 4 streams, an address at most 8; the next is 429 with Retry-After', async ({ t }) => {
  assert.is(limits.liveStreamsPerSession, 4);
  assert.is(limits.liveStreamsPerAddress, 8);
  const [ann, bob, cat] = [await t.guest('ann'), await t.guest('bob'), await t.guest('cat')];
  const held: Opened[] = [];
  try {
    for (let i = 0; i < 4; i++) held.push(await open(t.base, i % 2 ? '/live' : '/live/lamp', ann.cookie));
    assert.equal(
      held.map((s) => s.status),
      [200, 200, 200, 200],
    );
    const fifth = await open(t.base, '/live', ann.cookie);
    assert.is(fifth.status, 429);
    const refused = JSON.parse(await fifth.body);
    assert.is(refused.class, 'rateLimited');
    assert.match(refused.message, /this session holds 4 live streams/);
    const wait = Number(fifth.headers['retry-after']);
    assert.ok(wait >= 1 && wait <= 20, `Retry-After ${wait}: when ann's oldest stream ends`);

    for (let i = 0; i < 4; i++) held.push(await open(t.base, '/live', bob.cookie));
    assert.ok(held.every((s) => s.status === 200));
    const ninth = await open(t.base, '/live', cat.cookie);
    assert.is(ninth.status, 429, 'cat has no stream yet, but the address holds 8');
    assert.match(JSON.parse(await ninth.body).message, /this address holds 8 live streams/);

    // One of ann's closes: her session may open one again.
    held.shift()!.close();
    let again: Opened | undefined;
    for (let tries = 0; tries < 40; tries++) {
      again = await open(t.base, '/live', ann.cookie);
      if (again.status === 200) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.is(again!.status, 200);
    held.push(again!);
  } finally {
    for (const s of held) s.close();
  }
});

share.run();
