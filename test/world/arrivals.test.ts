/**
 * The arrivals reactor follows `$all` for arrivals only, passing world entries over unread; its
 * checkpoint must still move past them, or every start would look again at the whole journal.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import { arrivalsCheckpoint } from '../../src/commands/world-arrivals.js';
import { reactorCheckpointKey } from '../../src/commands/reactor-checkpoint.js';
import { startTestTown } from './support.js';

test('the arrivals checkpoint moves past the world entries it passes over', async () => {
  const t = await startTestTown();
  try {
    const ann = await t.guest('ann');
    const arrived = (await t.town.events.headPosition())!;
    for (let i = 0; i < 12; i++) {
      const r = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: `fill-${i}`, fields: { measures: 0 } });
      assert.is(r.status, 200, r.text);
    }
    const head = (await t.town.events.headPosition())!;
    assert.ok(head > arrived + 10n, 'the turns were journaled after the arrival');
    await t.restart();
    const checkpoint = await t.town.reads.at(0).checkpoint(reactorCheckpointKey(arrivalsCheckpoint));
    assert.ok(checkpoint !== undefined && checkpoint >= head, `checkpoint ${checkpoint} reaches the head ${head}, not the last arrival ${arrived}`);
  } finally {
    await t.close();
    fs.rmSync(t.dir, { recursive: true, force: true });
  }
});

test.run();
