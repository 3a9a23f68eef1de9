/**
 * `/live` across a carry: the heights it sends keep increasing (a carry reuses no height), so a
 * page drawn before the carry hears `moved` with a height past it, and a stream open during the
 * carry hears only increasing heights.
 */
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startPagesTown, turn } from './support.js';

/** The ids of `moved` events of an event stream, as they come. */
function moved(base: string, p: string, cookie: string): { heights: number[]; close(): void; ready: Promise<void> } {
  const heights: number[] = [];
  let req: http.ClientRequest;
  const ready = new Promise<void>((resolve, reject) => {
    req = http.get(`${base}${p}`, { headers: { accept: 'text/event-stream', cookie }, agent: false }, (res) => {
      assert.is(res.statusCode, 200);
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          if (/^event: moved$/m.test(block)) heights.push(Number(/^id: (\d+)$/m.exec(block)?.[1]));
        }
      });
      resolve();
    });
    req.on('error', reject);
  });
  return { heights, ready, close: () => req.destroy() };
}

const until = async (check: () => boolean, ms = 5000) => {
  for (const end = Date.now() + ms; !check(); ) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

test('/live across a carry: heights keep increasing, none reused', async () => {
  const t = await startPagesTown({ holdMs: 20_000 });
  const archive = fs.mkdtempSync(path.join(os.tmpdir(), 'town-carry-live-'));
  try {
    const ann = await t.guest('ann');
    await turn(t, ann, 'lamp', 'light', { fields: {} });
    const drawn = t.town.world.height;
    const s = moved(t.base, `/live?h=${drawn}`, ann.cookie);
    await s.ready;
    const done = await t.town.world.carry(archive);
    assert.is(done.height, drawn);
    for (const m of ['douse', 'light', 'douse']) await turn(t, ann, 'lamp', m, { fields: {} });
    await until(() => s.heights.includes(t.town.world.height));
    s.close();
    assert.ok(s.heights.length >= 1);
    assert.equal(
      s.heights,
      [...s.heights].sort((a, b) => a - b),
      'increasing',
    );
    assert.is(new Set(s.heights).size, s.heights.length, 'none twice');
    assert.ok(s.heights[0]! > drawn, `first ${s.heights[0]} past the height drawn before the carry, ${drawn}`);
    // a page drawn before the carry hears at once where the journal is now, past the carry
    const late = moved(t.base, `/live?h=${drawn - 1}`, ann.cookie);
    await late.ready;
    await until(() => late.heights.length > 0);
    late.close();
    assert.equal(late.heights, [t.town.world.height]);
    assert.ok(late.heights[0]! > done.height);
  } finally {
    await t.close();
    fs.rmSync(archive, { recursive: true, force: true });
  }
});

test.run();
