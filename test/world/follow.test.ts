/**
 * WorldService.follow: two world services on one journal stand for two fronts. A turn one of
 * them takes is read by the other when it follows, and announced to its onCommit listeners as
 * its own turns are; a command that arrives while it follows waits and is then decided on the
 * world it caught up to; a service with a batch in flight leaves following to that append.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { libraryPrograms } from '../../src/cards/kernel/library.js';
import { defaultOptions } from '../../src/cards/kernel/options.js';
import type { Entry } from '../../src/cards/kernel/entry.js';
import { WorldService } from '../../src/commands/world-service.js';
import { openEmbeddedEventStore, type EmbeddedEventStore } from '../../src/stores/embedded/event-store.js';
import { testClock } from './support.js';

const service = (events: EmbeddedEventStore) =>
  new WorldService({
    events,
    programs: libraryPrograms(),
    clock: testClock(),
    options: () => defaultOptions,
    genesis: { host: 'town.test', opener: 'town' },
  });

const fill = (intent: string) => ({ kind: 'turn' as const, principal: 'town', object: 'lamp', method: 'fill', intent, fields: { measures: 1 } });

test('a front hears the turns another took, and decides its next on the world it caught up to', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-follow-'));
  const events = await openEmbeddedEventStore({ dataDir: dir });
  const a = service(events);
  const b = service(events);
  try {
    await a.open();
    await b.open();
    const heard: Entry[][] = [];
    b.onCommit((entries) => heard.push([...entries]));
    const first = await a.submit(fill('one'));
    assert.is(first.outcome.kind, 'journal', JSON.stringify(first.outcome));
    assert.is(b.height, a.height - 1, 'b has not read it yet');
    await b.follow();
    assert.is(b.height, a.height);
    assert.equal(
      heard.map((es) => es.map((e) => e.height)),
      [[a.height - 1]],
      'announced once, as its own commits are',
    );
    // Following again with nothing new announces nothing.
    await b.follow();
    assert.is(heard.length, 1);
    // A command that arrives while b follows waits, then is decided after what a appended.
    await a.submit(fill('two'));
    const following = b.follow();
    const third = b.submit(fill('three'));
    await following;
    const decided = await third;
    assert.is(decided.outcome.kind, 'journal', JSON.stringify(decided.outcome));
    assert.is(decided.height, a.height + 1);
    assert.is(b.height, a.height + 1);
  } finally {
    await a.close();
    await b.close();
    await events.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
