/**
 * A live rebuild (`npm run rebuild -- --live`, projections/live-rebuild.ts): 48 guests cast
 * turns and read while every read model is folded again into a new generation and the town
 * switches to it. No request fails, no read goes back (a card's version, a guest's own receipt
 * once seen), and after the switch the live read models equal a rebuild from the journal,
 * digest for digest; the old generation is gone.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { libraryPrograms } from '../../src/cards/kernel/library.js';
import { projectionNames } from '../../src/projections/index.js';
import { allProjections } from '../../src/projectors/registry.js';
import { digestProjection } from '../../src/projections/digest.js';
import { rebuildProjections } from '../../src/projections/rebuild.js';
import { startTestTown } from '../world/support.js';

const clients = 48;

test('48 clients cast and read through a live rebuild: no error, no read going back, equal digests after', async () => {
  const t = await startTestTown();
  const began = performance.now();
  const at = (what: string) => console.log(`${what} at ${((performance.now() - began) / 1000).toFixed(1)} s`);
  try {
    const guests = await Promise.all(Array.from({ length: clients }, (_, i) => t.guest(`g${i}`)));
    // A journal worth rebuilding: a few thousand entries, submitted below the front.
    for (let i = 0; i < 1500; i += 500) {
      await Promise.all(
        Array.from({ length: 500 }, (_, j) =>
          t.town.world.submit({
            kind: 'turn',
            principal: guests[j % clients]!.principal,
            intent: `bulk-${i + j}`,
            object: 'lamp',
            method: 'fill',
            fields: { measures: j % 3 },
          }),
        ),
      );
    }
    at('journal written');
    const failures: string[] = [];
    let stop = false;
    let requests = 0;
    const load = guests.map(async (g, gi) => {
      let version = -1;
      let n = 0;
      while (!stop) {
        const intent = `live-${gi}-${n++}`;
        const turn = await t.post('/AGENTS.md/world/lamp/fill', g.token, { intent, fields: { measures: n % 3 } });
        if (turn.status !== 200) failures.push(`turn ${turn.status} ${turn.text.slice(0, 200)}`);
        const card = await t.get('/AGENTS.md/world/lamp', g.token);
        if (card.status !== 200) failures.push(`card ${card.status} ${card.text.slice(0, 200)}`);
        else if (card.json.version < version) failures.push(`${g.name} read lamp version ${card.json.version} after ${version}`);
        else version = card.json.version;
        // Its own receipt, read after its turn (read-your-writes), in whichever generation.
        const receipt = await t.get(`/AGENTS.md/receipt?intent=${intent}`, g.token);
        if (receipt.status !== 200) failures.push(`${g.name}'s receipt ${intent}: ${receipt.status} ${receipt.text.slice(0, 200)}`);
        requests += 3;
      }
    });
    await new Promise((r) => setTimeout(r, 200));
    const steps: string[] = [];
    const result = await t.town.rebuildLive({ onStep: (line) => steps.push(line), batch: 1000 });
    const atSwitch = requests;
    at('switched');
    await new Promise((r) => setTimeout(r, 400));
    stop = true;
    await Promise.all(load);
    assert.equal(failures.slice(0, 10), [], `${failures.length} failures`);
    assert.ok(atSwitch > 0 && requests > atSwitch, `requests went on before (${atSwitch}) and after the switch (${requests})`);
    assert.is(result.from, 0);
    assert.is(result.generation, 1);
    assert.is(t.town.reads.generation, 1);
    assert.ok(result.events >= 1500, `${result.events} events folded`);
    assert.ok(
      steps.some((s) => s.startsWith('switched to generation 1')),
      steps.join('\n'),
    );

    at('load stopped');
    // The old generation is dropped; the new one is what a rebuild from the journal gives.
    const head = (await t.town.events.headPosition())!;
    for (const p of t.town.projectors) assert.ok(await p.waitFor(head, 30_000), `${p.names.join(',')} caught up after the switch`);
    const projections = allProjections(libraryPrograms());
    for (const name of projectionNames) {
      assert.is(await t.town.reads.at(0).checkpoint(name), undefined, `generation 0's ${name} is dropped`);
      assert.is(await t.town.reads.at(0).collection(`${name}.cards`).count({}), 0);
    }
    const fresh = t.town.reads.at(7);
    await rebuildProjections(
      t.town.events,
      fresh,
      Object.values(projections).filter((p) => p.name !== 'repository'),
    );
    for (const name of projectionNames.filter((n) => n !== 'repository')) {
      const live = await digestProjection(t.town.reads, projections[name]);
      const rebuilt = await digestProjection(fresh, projections[name]);
      if (['cards', 'receipts', 'guests'].includes(name)) assert.ok(live.documents > 0, `${name} has documents`);
      assert.equal(live, rebuilt, `${name}: the switched generation equals a rebuild`);
    }
    await fresh.drop();
    console.log(steps.find((line) => line.startsWith('switched')));
    console.log(
      `live rebuild: ${result.events} events in ${result.seconds.toFixed(2)} s, projectors paused ${Math.round(result.pauseMs)} ms, ${requests} requests by ${clients} clients`,
    );
  } finally {
    await t.close();
  }
});

test.run();
