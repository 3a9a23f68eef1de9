/**
 * Forks of a carried town: at a height after the carry the town is replayed from the carry
 * entry of its epoch, at a height before it from the old epoch's journal; either way the fork
 * reads the town as it stood there.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { carryWhileStopped } from '../world/carry-town.js';
import { startTestTown } from '../world/support.js';

test('a fork of a carried town reads the town as it stood, before the carry or after it', async () => {
  const t = await startTestTown();
  try {
    const ann = await t.guest('ann');
    const lamp = async (p: string) => (await t.get(p, ann.token)).json.state;
    const first = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'one', fields: { measures: 1 } });
    assert.is(first.status, 200, first.text);
    const beforeFill = first.json.receipt.height as number;
    const afterOne = await lamp('/AGENTS.md/world/lamp');
    const { height: carriedAt } = await carryWhileStopped(t);
    const second = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'two', fields: { measures: 2 } });
    assert.is(second.json.receipt.height, carriedAt + 1);
    const now = await lamp('/AGENTS.md/world/lamp');
    assert.not.equal(now, afterOne);

    const opened = [
      ['then', beforeFill],
      ['carried', carriedAt + 1],
    ] as const;
    for (const [name, height] of opened) {
      const r = await t.post('/AGENTS.md/scratch', ann.token, { name, from: { world: 'town', height } });
      assert.is(r.status, 200, `${name}: ${r.text}`);
    }
    assert.equal(await lamp('/AGENTS.md/world/lamp'), now, 'the town itself moved on');
    const carriedLamp = await lamp('/AGENTS.md/scratch/carried/world/lamp');
    assert.equal(carriedLamp, afterOne, 'at the carry entry: the town as it was carried');
    const thenLamp = await lamp('/AGENTS.md/scratch/then/world/lamp');
    assert.not.equal(thenLamp, afterOne, 'before the first fill: the lamp as it was then');
  } finally {
    await t.close();
  }
});

test.run();
