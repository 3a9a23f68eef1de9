/**
 * Projector workers beside the town on the embedded stores (`TOWN_PROJECTORS=workers`): the town
 * (`dist/src/main.js`) and two workers (`dist/src/cli/projector.js`, every projection) run as
 * separate processes on one TOWN_DATA. The town owns the journal; the workers follow it and fold
 * into the shared read store under leases. Under turn load from 16 guests at once (at most the 16 arrivals an address may make a minute):
 * - each turn's receipt is read back from the town at once (`GET /receipt/{slug}` reads the
 *   receipts read model, which only the workers fold), so read-your-writes holds across processes;
 * - the worker holding the leases is SIGKILLed mid-load (after 80 turns), and the standby takes them over within
 *   TOWN_LEASE_MS (the dead holder's leases are void at once: its process is gone);
 * - afterwards every acknowledged turn is in the journal once, and the read models the workers
 *   folded equal the ones `npm run rebuild` folds, digest for digest; a rebuild started while a
 *   worker still runs is refused.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from '../world/support.js';
import { shows, type Child, cli, cliOf, digestLines, foundTown, killAll, mainFile, run, townEnv } from './processes.js';

const origin = 'http://town.test';
// Each guest makes at most 14 turns, each read back: within the rate limit of 32 calls a minute.
const guestCount = 16;
const turnsPerGuest = 14;
const leaseMs = 2000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a town and two projector workers as processes on one TOWN_DATA: reads see each turn, a killed worker is taken over, digests equal a rebuild', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-workers-'));
  const children: Child[] = [];
  try {
    // Found the town and admit the guests in this process, then hand the data to the children.
    const guests = await foundTown(
      dir,
      origin,
      Array.from({ length: guestCount }, (_, i) => `w${i}`),
    );
    const env = townEnv(dir, origin, { TOWN_LEASE_MS: String(leaseMs) });
    const town = run(mainFile, [], env);
    children.push(town);
    const base = (await town.saw(/town listening on (http:\/\/\S+)/, 20_000))[1]!;
    const first = run(cliOf('projector'), [], env);
    children.push(first);
    await first.saw(/following the journal/, 20_000);
    const standby = run(cliOf('projector'), [], env);
    children.push(standby);
    await standby.saw(/waiting to take over/, 20_000);

    const acked: { slug: string; height: number }[] = [];
    let killedAt = 0;
    let unseen = 0;
    const stop = { now: false };
    const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
    const client = async (g: { name: string; token: string }) => {
      for (let n = 0; !stop.now && n < turnsPerGuest; n++) {
        const intent = `n${n}`;
        const r = await request(base, 'POST', '/AGENTS.md/world/lamp/fill', {
          token: g.token,
          json: { intent, fields: { measures: n % 3 } },
          agent,
          timeoutMs: 15_000,
        });
        assert.is(r.status, 200, r.text);
        const receipt = r.json.receipt as { slug: string; height: number };
        acked.push(receipt);
        // Read-your-writes across processes: the receipts read model is folded by a worker.
        const read = await request(base, 'GET', `/AGENTS.md/receipt/${receipt.slug}`, { token: g.token, agent, timeoutMs: 15_000 });
        if (!shows(read, receipt.height)) {
          unseen++;
          if (unseen <= 5)
            console.log(
              `  unseen ${receipt.height} after ${acked.length} acks, killed ${killedAt ? Date.now() - killedAt : '-'} ms ago: ${read.status} ${read.text.slice(0, 200)}`,
            );
        }
      }
    };
    const load = guests.map((g) => client(g));
    while (acked.length < 80) await sleep(20);
    first.child.kill('SIGKILL');
    assert.is((await first.exited).signal, 'SIGKILL');
    killedAt = Date.now();
    await standby.saw(/following the journal/, leaseMs + 5000);
    const takeover = Date.now() - killedAt;
    const atTakeover = acked.length;
    while (acked.length < atTakeover + 80 && acked.length < guestCount * turnsPerGuest) await sleep(20);
    stop.now = true;
    await Promise.all(load);
    agent.destroy();
    assert.is(unseen, 0, 'every receipt was read back at once from the town');
    assert.ok(takeover <= leaseMs, `the standby took over in ${takeover} ms`);

    // The standby folds to the journal's end; then the town and the worker stop.
    const head = Math.max(...acked.map((a) => a.height));
    const last = await request(base, 'GET', `/AGENTS.md/receipt/${acked.find((a) => a.height === head)!.slug}`, { token: guests[0]!.token });
    assert.is(last.status, 200, last.text);
    town.child.kill('SIGTERM');
    assert.is((await town.exited).code, 0, town.output().slice(-4000));
    await sleep(500);
    // A rebuild while a worker still folds these read models is refused, and changes nothing.
    const refused = await cli('rebuild', [], { ...env, TOWN_PROJECTORS: 'workers' });
    assert.is(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /a projector worker holds \w+: stop the workers/);
    standby.child.kill('SIGTERM');
    assert.is((await standby.exited).code, 0, standby.output().slice(-4000));

    const heights = acked.map((a) => a.height);
    assert.is(new Set(heights).size, heights.length, 'no two acknowledged turns share a height');
    const offline = { ...env, TOWN_PROJECTORS: 'workers' };
    const caughtUp = await cli('projector', ['--until-caught-up'], offline);
    assert.is(caughtUp.code, 0, caughtUp.stderr);
    const live = await cli('digest', [], offline);
    assert.is(live.code, 0, live.stderr);
    const rebuilt = await cli('rebuild', [], offline);
    assert.is(rebuilt.code, 0, rebuilt.stderr);
    const digests = digestLines;
    assert.ok(digests(live.stdout).length >= 5, live.stdout);
    assert.equal(digests(live.stdout), digests(rebuilt.stdout), 'the workers folded what a rebuild folds');
    console.log(`  embedded workers: ${acked.length} turns acknowledged and read back, standby took over ${takeover} ms after the kill`);
  } finally {
    killAll(children);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
