/**
 * A town restarted after a live rebuild serves the generation it switched to, and a second
 * live rebuild moves on to the next one and drops the first.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestTown } from '../world/support.js';

test('a town restarted after a live rebuild serves the new generation', async () => {
  const t = await startTestTown();
  try {
    const ann = await t.guest('ann');
    await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'before', fields: { measures: 1 } });
    await t.town.rebuildLive();
    const after = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'after', fields: { measures: 2 } });
    assert.is(after.status, 200);
    await t.restart();
    assert.is(t.town.reads.generation, 1);
    assert.is((await t.get('/AGENTS.md/receipt?intent=before', ann.token)).status, 200);
    assert.is((await t.get('/AGENTS.md/receipt?intent=after', ann.token)).status, 200);
    // A second live rebuild goes on to generation 2 and drops 1.
    const again = await t.town.rebuildLive();
    assert.equal([again.from, again.generation], [1, 2]);
    assert.is(await t.town.reads.at(1).checkpoint('cards'), undefined);
    assert.is((await t.get('/AGENTS.md/receipt?intent=after', ann.token)).status, 200);
  } finally {
    await t.close();
  }
});

test.run();
