/**
 * Child process for the crash test: appends under load with concurrent writers and prints every
 * acknowledged append as `ack <stream> <revision> <position>`, one line each, until killed.
 * Usage: node crash-writer.js <dataDir> <writers>
 */
import { randomUUID } from 'node:crypto';
import { openEmbeddedEventStore } from '../../src/stores/embedded/event-store.js';
import { WrongExpectedVersion } from '../../src/stores/event-store.js';

const [dataDir, writersArg = '8'] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: crash-writer <dataDir> <writers>');
const writers = Number(writersArg);
const store = await openEmbeddedEventStore({ dataDir });

async function writer(w: number): Promise<never> {
  // Half the writers own a stream and append at its exact revision; the rest share two streams.
  const own = w % 2 === 0;
  const stream = own ? `crash-own-${w}` : `crash-shared-${w % 4}`;
  let revision = await store.streamRevision(stream);
  for (let seq = 0; ; seq++) {
    const count = 1 + (seq % 3);
    const events = Array.from({ length: count }, (_, i) => ({
      id: randomUUID(),
      type: 'Tick',
      data: { w, seq, i, pad: 'x'.repeat((seq * 37) % 900) },
    }));
    try {
      const expected = own ? (revision === undefined ? 'noStream' : revision) : 'any';
      const result = await store.append(stream, events, expected);
      revision = result.nextRevision;
      process.stdout.write(`ack ${stream} ${result.nextRevision} ${result.position} ${count}\n`);
    } catch (error) {
      if (!(error instanceof WrongExpectedVersion)) throw error;
      revision = await store.streamRevision(stream);
    }
  }
}

process.stdout.write('ready\n');
await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
