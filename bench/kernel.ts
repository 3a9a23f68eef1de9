/**
 * `npm run bench -- kernel`: turns decided per second with no I/O (decide + evolve, content
 * ids included), on the genesis town and on a town of 100,000 cards, against a plain-JS
 * baseline doing the same state change in the same run. `--quick` runs each for a shorter time.
 */
import { performance } from 'node:perf_hooks';
import { contentId } from '../src/cards/kernel/content-id.js';
import { decide, type Command } from '../src/cards/kernel/decide.js';
import { evolve } from '../src/cards/kernel/evolve.js';
import { libraryPrograms } from '../src/cards/kernel/library.js';
import { defaultOptions } from '../src/cards/kernel/options.js';
import type { Programs } from '../src/cards/kernel/programs.js';
import { blankWorld, type World } from '../src/cards/kernel/world.js';
import type { Card } from '../src/cards/kernel/entry.js';

const ann = 'guest:bench.town:ann';
const T0 = Date.UTC(2026, 10, 23, 12);

function town(programs: Programs): World {
  const w = blankWorld();
  const o = decide(w, { kind: 'genesis', name: 'town', host: 'bench.town', opener: ann }, T0, programs);
  if (o.kind !== 'journal') throw new Error('genesis failed');
  for (const e of o.entries) evolve(w, e);
  // the bench's guest owns the lamp, so its law lets them put it out
  w.cards.set('lamp', { ...w.cards.get('lamp')!, owner: ann });
  return w;
}

/** Adds `n` lamps (copies of the town lamp) so the world holds as many cards as a busy town. */
function crowd(w: World, n: number): void {
  const lamp = w.cards.get('lamp')!;
  for (let i = 0; i < n; i++) {
    const card: Card = { ...lamp, id: `lamp-x${i}`, owner: ann };
    w.cards.set(card.id, card);
  }
}

/** The lamp's three spells in a cycle, so every turn writes: light, douse, fill 1. */
function turn(i: number, object: string): Command {
  const step = i % 3;
  return step === 0
    ? { kind: 'turn', principal: ann, intent: `b${i}`, object, method: 'light' }
    : step === 1
      ? { kind: 'turn', principal: ann, intent: `b${i}`, object, method: 'douse' }
      : { kind: 'turn', principal: ann, intent: `b${i}`, object, method: 'fill', fields: { measures: 1 } };
}

function kernelRate(w: World, programs: Programs, object: string, seconds: number): { rate: number; n: number } {
  let clock = T0;
  let n = 0;
  const start = performance.now();
  const until = start + seconds * 1000;
  while (performance.now() < until) {
    for (let k = 0; k < 100; k++, n++) {
      const o = decide(w, turn(n, object), (clock += 10), programs, defaultOptions);
      if (o.kind !== 'journal' || o.receipt.status !== 'done') throw new Error(`turn ${n}: ${JSON.stringify(o).slice(0, 300)}`);
      for (const e of o.entries) evolve(w, e);
    }
  }
  return { rate: n / ((performance.now() - start) / 1000), n };
}

/** The same turns in plain JS: a Map of cards, an intent table, state copied on write. */
function baselineRate(seconds: number): number {
  type Lamp = { lit: boolean; fuel: number };
  const cards = new Map<string, { state: Lamp; version: number; lines: string[] }>();
  cards.set('lamp', { state: { lit: false, fuel: 3 }, version: 1, lines: [] });
  const intents = new Map<string, number>();
  let n = 0;
  const start = performance.now();
  const until = start + seconds * 1000;
  while (performance.now() < until) {
    for (let k = 0; k < 100; k++, n++) {
      const key = `${ann}\nb${n}`;
      if (intents.has(key)) throw new Error('repeat');
      const card = cards.get('lamp')!;
      const s = card.state;
      const step = n % 3;
      let next: Lamp;
      if (step === 0) {
        if (s.lit || s.fuel === 0) throw new Error('refused');
        next = { lit: true, fuel: s.fuel - 1 };
      } else if (step === 1) next = { ...s, lit: false };
      else next = { ...s, fuel: s.fuel + 1 };
      if (next.fuel > 10) throw new Error('law');
      cards.set('lamp', { state: next, version: card.version + 1, lines: [...card.lines.slice(-31), `${ann} did ${step}`] });
      intents.set(key, n);
    }
  }
  return n / ((performance.now() - start) / 1000);
}

function cidRate(seconds: number): number {
  const body = { height: 1, clock: T0, kind: 'turn', principal: ann, receipt: { status: 'done', line: 'ann lights the lamp', revealed: ['lamp stands at version 2'], offers: [], usage: { ticks: 20, heap: 75, bytes: 73 } }, writes: [{ id: 'lamp', version: 2, state: { tag: 'record', fields: [{ name: 'lit', value: { tag: 'boolean', value: true } }, { name: 'fuel', value: { tag: 'natural', value: 2 } }] } }] };
  let n = 0;
  const start = performance.now();
  const until = start + seconds * 1000;
  while (performance.now() < until) for (let k = 0; k < 100; k++, n++) contentId({ ...body, height: n });
  return n / ((performance.now() - start) / 1000);
}

export async function main(args: string[]): Promise<void> {
  const seconds = args.includes('--quick') ? 0.5 : 2;
  const programs = libraryPrograms();
  const small = town(programs);
  // warm up the compiled library and the JIT
  kernelRate(town(programs), programs, 'lamp', 0.3);
  baselineRate(0.2);

  const base = baselineRate(seconds);
  const k = kernelRate(small, programs, 'lamp', seconds);
  const big = town(programs);
  const t = performance.now();
  crowd(big, 100_000);
  const crowdMs = performance.now() - t;
  const kb = kernelRate(big, programs, 'lamp-x50000', seconds);
  const cids = cidRate(seconds / 2);

  const fmt = (x: number) => Math.round(x).toLocaleString('en');
  console.log(`plain-JS baseline (same turns on a Map)   ${fmt(base)} turns/s`);
  console.log(`kernel, genesis town (${small.cards.size} cards)         ${fmt(k.rate)} turns/s  (${k.n} turns; ${(base / k.rate).toFixed(1)}x slower than plain JS)`);
  console.log(`kernel, town of ${big.cards.size.toLocaleString('en')} cards          ${fmt(kb.rate)} turns/s  (${(kb.rate / k.rate).toFixed(2)} of the small town's rate; world built in ${crowdMs.toFixed(0)} ms)`);
  console.log(`content ids alone (dag-cbor + sha-256)    ${fmt(cids)} entries/s  (${((k.rate / cids) * 100).toFixed(0)}% of a turn's time)`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
