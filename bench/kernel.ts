/**
 * `npm run bench -- kernel`: turns decided and evolved per second with no I/O (content ids
 * included), against a plain-JS baseline doing the same state change, in the same run:
 *  - lamp: the genesis town's lamp cycling light, douse, fill 1 (every turn writes);
 *  - lamp, 100k: the same on a lamp among 100,000 cards (no turn may cost O(cards));
 *  - note: writing a note (`write text=…`), a text-carrying spell;
 *  - content ids alone: the canonical DAG-CBOR and sha-256 of a lamp turn's entry.
 *
 * Each subject runs in short rounds, interleaved, after a warm-up long enough for the JIT, and
 * the median round is reported: the machines are shared and noisy, so a subject measured in
 * one stretch can be unlucky. Rates are given per second of wall time and per second of CPU
 * time (the process's, GC threads included), which other work on the machine disturbs less.
 * `--quick` runs fewer, shorter rounds.
 */
import { performance } from 'node:perf_hooks';
import { contentId } from '../src/cards/kernel/content-id.js';
import type { Command } from '../src/cards/kernel/commands.js';
import { decide } from '../src/cards/kernel/decide.js';
import { evolve } from '../src/cards/kernel/evolve.js';
import { libraryPrograms } from '../src/cards/kernel/library.js';
import { defaultOptions } from '../src/cards/kernel/options.js';
import type { Programs } from '../src/cards/kernel/programs.js';
import { blankWorld, type World } from '../src/cards/kernel/world.js';
import type { Card, EntryBody } from '../src/cards/kernel/entry.js';

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

/** A world being played: its own clock and turn counter. */
interface Play {
  world: World;
  clock: number;
  n: number;
  command(i: number): Command;
}

/** The lamp's three spells in a cycle, so every turn writes: light, douse, fill 1. */
function lampTurns(object: string) {
  return (i: number): Command => {
    const step = i % 3;
    return step === 0
      ? { kind: 'turn', principal: ann, intent: `b${i}`, object, method: 'light' }
      : step === 1
        ? { kind: 'turn', principal: ann, intent: `b${i}`, object, method: 'douse' }
        : { kind: 'turn', principal: ann, intent: `b${i}`, object, method: 'fill', fields: { measures: 1 } };
  };
}

/** A note made by the bench's guest, then written over and over. */
function notePlay(programs: Programs): Play {
  const world = town(programs);
  const o = decide(
    world,
    { kind: 'turn', principal: ann, intent: 'make-note', object: 'lamp', method: 'receive', spell: 'make note' },
    T0 + 1,
    programs,
    defaultOptions,
  );
  if (o.kind !== 'journal' || o.receipt.status !== 'done') throw new Error(`make note: ${JSON.stringify(o).slice(0, 300)}`);
  for (const e of o.entries) evolve(world, e);
  const note = o.entries[0]!.made![0]!.id;
  return {
    world,
    clock: T0 + 2,
    n: 0,
    command: (i) => ({ kind: 'turn', principal: ann, intent: `n${i}`, object: note, method: 'write', fields: { text: `the fair is on sunday, stall ${i}` } }),
  };
}

function playTurns(p: Play, programs: Programs, count: number): void {
  for (let k = 0; k < count; k++, p.n++) {
    const o = decide(p.world, p.command(p.n), (p.clock += 10), programs, defaultOptions);
    if (o.kind !== 'journal' || o.receipt.status !== 'done') throw new Error(`turn ${p.n}: ${JSON.stringify(o).slice(0, 300)}`);
    for (const e of o.entries) evolve(p.world, e);
  }
}

/** The same turns in plain JS: a Map of cards, an intent table, state copied on write. */
function baseline(): (count: number) => void {
  type Lamp = { lit: boolean; fuel: number };
  const cards = new Map<string, { state: Lamp; version: number; lines: string[] }>();
  cards.set('lamp', { state: { lit: false, fuel: 3 }, version: 1, lines: [] });
  const intents = new Map<string, number>();
  let n = 0;
  return (count) => {
    for (let k = 0; k < count; k++, n++) {
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
  };
}

function contentIds(): (count: number) => void {
  const body: EntryBody = {
    height: 1,
    clock: T0,
    kind: 'turn',
    principal: ann,
    intent: { intent: 'b1', fingerprint: 'PjvArZiJ0GJm_aMDGiRP-ubkr2CwRktr1c9g3gGz5oc' },
    request: { object: 'lamp', method: 'light' },
    receipt: {
      status: 'done',
      line: 'ann.bench.town lights the lamp',
      revealed: ['rule dark did not fire on lamp', 'lamp stands at version 2'],
      offers: [],
      usage: { ticks: 20, heap: 75, bytes: 73 },
      object: 'lamp',
      method: 'light',
      result: { tag: 'record', fields: [] },
    },
    writes: [
      {
        id: 'lamp',
        version: 2,
        state: {
          tag: 'record',
          fields: [
            { name: 'lit', value: { tag: 'boolean', value: true } },
            { name: 'fuel', value: { tag: 'natural', value: 2 } },
          ],
        },
        say: ['ann.bench.town lights the lamp'],
      },
    ],
  };
  let n = 0;
  return (count) => {
    for (let k = 0; k < count; k++, n++) contentId({ ...body, height: n });
  };
}

interface Subject {
  name: string;
  perRound: number;
  run(count: number): void;
  wall: number[];
  cpu: number[];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

export async function main(args: string[]): Promise<void> {
  const quick = args.includes('--quick');
  const rounds = quick ? 5 : 15;
  const programs = libraryPrograms();

  const lamp: Play = { world: town(programs), clock: T0, n: 0, command: lampTurns('lamp') };
  const big: Play = { world: town(programs), clock: T0, n: 0, command: lampTurns('lamp-x50000') };
  const t = performance.now();
  crowd(big.world, 100_000);
  const crowdMs = performance.now() - t;
  const note = notePlay(programs);

  const subjects: Subject[] = [
    { name: 'plain-JS baseline (same lamp turns on a Map)', perRound: 100_000, run: baseline(), wall: [], cpu: [] },
    { name: `kernel, lamp, genesis town (${lamp.world.cards.size} cards)`, perRound: 2000, run: (c) => playTurns(lamp, programs, c), wall: [], cpu: [] },
    {
      name: `kernel, lamp, town of ${big.world.cards.size.toLocaleString('en')} cards`,
      perRound: 2000,
      run: (c) => playTurns(big, programs, c),
      wall: [],
      cpu: [],
    },
    { name: 'kernel, note write, genesis town', perRound: 2000, run: (c) => playTurns(note, programs, c), wall: [], cpu: [] },
    { name: 'content ids alone (dag-cbor + sha-256)', perRound: 10_000, run: contentIds(), wall: [], cpu: [] },
  ];

  // warm-up by work done, not time: the JIT settles after some thousands of turns whatever the load
  for (const s of subjects) s.run(s.perRound * (quick ? 3 : 8));

  for (let r = 0; r < rounds; r++) {
    for (const s of subjects) {
      const c0 = process.cpuUsage();
      const w0 = performance.now();
      s.run(s.perRound);
      const wall = (performance.now() - w0) / 1000;
      const used = process.cpuUsage(c0);
      s.wall.push(s.perRound / wall);
      s.cpu.push(s.perRound / ((used.user + used.system) / 1e6));
    }
  }

  const fmt = (x: number) => Math.round(x).toLocaleString('en').padStart(9);
  const [base, small, , , cids] = subjects.map((s) => ({ wall: median(s.wall), cpu: median(s.cpu) }));
  const notes = [
    '',
    `  (${(base!.wall / small!.wall).toFixed(0)}x slower than plain JS)`,
    `  (${(median(subjects[2]!.wall) / small!.wall).toFixed(2)} of the genesis town's rate; world built in ${crowdMs.toFixed(0)} ms)`,
    '',
    `  (${((small!.cpu / cids!.cpu) * 100).toFixed(0)}% of a lamp turn's CPU time)`,
  ];
  console.log(`median of ${rounds} rounds; turns (or ids) per second of wall time | of CPU time`);
  subjects.forEach((s, i) => console.log(`${s.name.padEnd(48)} ${fmt(median(s.wall))} | ${fmt(median(s.cpu))}${notes[i]}`));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
