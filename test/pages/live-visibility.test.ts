/**
 * /live/{object} keeps to what the reader may see: a card only its owner may see is, for anyone
 * else, exactly a missing thing (404 `unknown`, the same words) and takes no stream place, while
 * its owner follows it. Town turns cannot hide a card yet, so the channel is given the town's
 * world with the lamp made its owner's alone.
 */
import { EventEmitter } from 'node:events';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { World } from '../../src/cards/kernel/world.js';
import type { TownContext } from '../../src/http/handler.js';
import { TownError } from '../../src/contract/town-error.js';
import { liveChannels } from '../../src/pages/live.js';
import { startPagesTown } from './support.js';

function fakeCtx(principal: string) {
  const res = Object.assign(new EventEmitter(), {
    writable: true,
    writableEnded: false,
    written: [] as string[],
    writeHead() {},
    write(text: string) {
      res.written.push(text);
      return true;
    },
    end() {
      res.writableEnded = true;
    },
  });
  const req = Object.assign(new EventEmitter(), { socket: { setNoDelay() {} } });
  const ctx = { state: { caller: principal ? { principal } : undefined, query: {} }, get: () => '', method: 'GET', req, res } as unknown as TownContext;
  return { ctx, res };
}

test('a card the reader may not see answers as a missing one; its owner follows it', async () => {
  const t = await startPagesTown();
  try {
    const ann = 'guest:town.test:ann';
    const base = t.town.world.committed;
    const lamp = base.cards.get('lamp')!;
    const hidden: World = { ...base, cards: new Map(base.cards).set('lamp', { ...lamp, visibility: 'owner', owner: ann }) };
    const channels = liveChannels({
      world: { height: t.town.world.height, committed: hidden, onCommit: () => () => {} },
      programs: t.town.programs,
      holdMs: 1000,
    });
    const refusal = (principal: string, object: string): TownError => {
      try {
        channels.view(fakeCtx(principal).ctx, object);
      } catch (err) {
        assert.instance(err, TownError);
        return err as TownError;
      }
      throw new Error(`${principal} was given a stream of ${object}`);
    };
    const unseen = refusal('guest:town.test:bob', 'lamp');
    const missing = refusal('guest:town.test:bob', 'no-lamp');
    assert.is(unseen.cls, 'unknown');
    assert.is(unseen.message.replace('lamp', 'X'), missing.message.replace('no-lamp', 'X'));
    assert.is(refusal('', 'lamp').cls, 'unknown', 'nor to a reader without a session');
    assert.is(channels.open, 0, 'a refusal holds no place');
    const owner = fakeCtx(ann);
    channels.view(owner.ctx, 'lamp');
    assert.is(channels.open, 1, 'the owner follows it');
    assert.match(owner.res.written.join(''), /^retry: /);
    channels.closeAll();
    assert.is(channels.open, 0);
    assert.ok(owner.res.writableEnded);
  } finally {
    await t.close();
  }
});

test.run();
