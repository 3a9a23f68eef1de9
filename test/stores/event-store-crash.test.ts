/**
 * Kill -9 a process that is appending under load, several times, and check after each crash
 * that every append it had acknowledged is on disk, in order, and that the store takes new
 * appends. (SIGKILL keeps the OS page cache; power loss is covered by LMDB's synced commits,
 * which the bench shows are really synced: one fdatasync per commit.)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openEmbeddedEventStore } from '../../src/stores/embedded-event-store.js';
import { collect, ev } from './event-store.contract.js';

const writerScript = path.join(path.dirname(fileURLToPath(import.meta.url)), 'crash-writer.js');
const ROUNDS = 6;

interface Ack {
  stream: string;
  revision: bigint;
  position: bigint;
  count: number;
}

function runUntilKilled(dataDir: string, aliveMs: number): Promise<Ack[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [writerScript, dataDir, '12'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let timer: NodeJS.Timeout | undefined;
    const guard = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!timer && out.startsWith('ready\n')) timer = setTimeout(() => child.kill('SIGKILL'), aliveMs);
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(guard);
      if (signal !== 'SIGKILL') return reject(new Error(`writer exited with ${code}: ${err}`));
      // Only whole lines count: the last one may have been cut by the kill.
      const lines = out.split('\n').slice(0, -1).filter((l) => l.startsWith('ack '));
      resolve(
        lines.map((line) => {
          const [, stream, revision, position, count] = line.split(' ');
          return { stream: stream!, revision: BigInt(revision!), position: BigInt(position!), count: Number(count) };
        }),
      );
    });
  });
}

test('acknowledged appends survive SIGKILL, in order, and the store goes on', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
  try {
    let acked = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const acks = await runUntilKilled(dataDir, 150 + Math.floor(Math.random() * 350));
      assert.ok(acks.length > 0, `round ${round}: the writer acknowledged nothing`);
      acked += acks.length;

      const store = await openEmbeddedEventStore({ dataDir });
      try {
        for (const ack of acks) {
          const [event] = await store.readStream(ack.stream, { fromRevision: ack.revision, maxCount: 1 });
          assert.ok(event, `round ${round}: ${ack.stream}@${ack.revision} lost`);
          assert.is(event!.position, ack.position, `round ${round}: ${ack.stream}@${ack.revision} moved`);
        }
        // The journal is whole: positions 1..head without holes, each stream's revisions 0..n
        // in position order.
        const all = await collect(store.readAll());
        assert.ok(all.every((e, i) => e.position === BigInt(i + 1)), `round ${round}: $all has holes`);
        const next = new Map<string, bigint>();
        for (const e of all) {
          assert.is(e.revision, next.get(e.stream) ?? 0n, `round ${round}: ${e.stream} out of order`);
          next.set(e.stream, e.revision + 1n);
        }
        const heads = [...next.keys()];
        for (const stream of heads) {
          const revision = await store.streamRevision(stream);
          const r = await store.append(stream, [ev('AfterCrash')], revision!);
          assert.is(r.nextRevision, revision! + 1n);
        }
      } finally {
        await store.close();
      }
    }
    assert.ok(acked > ROUNDS * 10, `only ${acked} acknowledged appends in ${ROUNDS} rounds`);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
