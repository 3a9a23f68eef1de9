/**
 * The carry of the kill test, in a process of its own: `node carry-child.js <dir> <step|run>`.
 * Prints each step as it is done; at the step named it stops and waits to be killed.
 */
import path from 'node:path';
import { carry } from '../../src/commands/carry.js';
import { TOWN_WORLD } from '../../src/events/world.js';
import { openEmbeddedEventStore } from '../../src/stores/embedded/event-store.js';

const [dir, pause] = process.argv.slice(2) as [string, string];
// CARRY_MAX_APPEND: a smaller largest append, so the carry is in parts
const maxAppendSize = process.env.CARRY_MAX_APPEND ? Number(process.env.CARRY_MAX_APPEND) : undefined;
const events = await openEmbeddedEventStore({ dataDir: dir, ...(maxAppendSize ? { maxAppendSize } : {}) });
process.stdout.write('started\n');
await carry({
  events,
  world: TOWN_WORLD,
  archiveDir: path.join(dir, 'archive'),
  clock: () => 1_900_000_000_000,
  onStep: async (step) => {
    process.stdout.write(`${step}\n`);
    if (step === pause) await new Promise(() => {});
  },
});
await events.close();
process.stdout.write('done\n');
