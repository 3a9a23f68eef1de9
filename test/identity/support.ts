/** Shared pieces of the identity tests: proof solving, a fresh store (given/when/then is test/support/given.ts). */
import { hash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { leadingZeroBits } from '../../src/commands/arrival.js';
import { openEmbeddedEventStore } from '../../src/stores/embedded/event-store.js';
import type { EventStore } from '../../src/stores/event-store.js';

/** A nonce whose proof digest over (challenge, name) has `bits` leading zero bits. */
export function solve(challenge: string, name: string, bits: number, start = 0): string {
  for (let n = start; ; n++) {
    const nonce = n.toString(36);
    if (leadingZeroBits(hash('sha256', `${challenge}:${name}:${nonce}`, 'buffer')) >= bits) return nonce;
  }
}

/** A nonce whose digest falls short of `bits` (almost every nonce does). */
export function shortNonce(challenge: string, name: string, bits: number): string {
  for (let n = 0; ; n++) {
    const nonce = `short-${n}`;
    if (leadingZeroBits(hash('sha256', `${challenge}:${name}:${nonce}`, 'buffer')) < bits) return nonce;
  }
}

export const secret = randomBytes(32);

/** A settable clock starting at a fixed instant. */
export function testClock(start = Date.UTC(2026, 10, 23, 12)) {
  let now = start;
  const clock = () => now;
  clock.advance = (ms: number) => {
    now += ms;
  };
  return clock;
}

export interface TempStore {
  dir: string;
  store: EventStore;
  reopen(): Promise<EventStore>;
  cleanup(): Promise<void>;
}

/** An embedded store in a fresh temporary directory. */
export async function tempStore(): Promise<TempStore> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
  const handle: TempStore = {
    dir,
    store: await openEmbeddedEventStore({ dataDir: dir }),
    async reopen() {
      await handle.store.close();
      handle.store = await openEmbeddedEventStore({ dataDir: dir });
      return handle.store;
    },
    async cleanup() {
      await handle.store.close().catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return handle;
}
