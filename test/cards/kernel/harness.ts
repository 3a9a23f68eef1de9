/**
 * A world under test: decide commands against it, apply what they journal, keep the journal
 * and the commands that produced it (for replay and re-decision checks).
 */
import * as assert from 'uvu/assert';
import { answerOf, decide, type Answer, type Command, type Receipt, type TryReport } from '../../../src/cards/kernel/decide.js';
import type { Entry } from '../../../src/cards/kernel/entry.js';
import { evolve } from '../../../src/cards/kernel/evolve.js';
import { defaultOptions, type KernelOptions } from '../../../src/cards/kernel/options.js';
import type { Programs } from '../../../src/cards/kernel/programs.js';
import { blankWorld, type World } from '../../../src/cards/kernel/world.js';
import { fixturePrograms } from './fixtures.js';

export const HOST = 'town.test';
export const ann = `guest:${HOST}:ann`;
export const bob = `guest:${HOST}:bob`;
export const mayor = `guest:${HOST}:mayor`;
export const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);

export interface Decided {
  command: Command;
  clock: number;
  /** The kernel's outcome, a repeat's first receipt read back from the journal as the world service does. */
  outcome: Answer;
  /** Height of the world the command was decided against. */
  height: number;
}

export class Harness {
  world: World = blankWorld();
  readonly journal: Entry[] = [];
  readonly decided: Decided[] = [];
  clock = T0;
  private n = 0;

  constructor(
    readonly programs: Programs,
    public options: KernelOptions = defaultOptions,
  ) {}

  static town(options: Partial<KernelOptions> = {}, programs: Programs = fixturePrograms().programs): Harness {
    const h = new Harness(programs, { ...defaultOptions, ...options });
    h.run({ kind: 'genesis', name: 'town', host: HOST, opener: mayor });
    return h;
  }

  static empty(opener = ann, options: Partial<KernelOptions> = {}, programs: Programs = fixturePrograms().programs): Harness {
    const h = new Harness(programs, { ...defaultOptions, ...options });
    h.run({ kind: 'empty', name: 'scratch/ann/play', host: HOST, opener });
    return h;
  }

  run(command: Command): Answer {
    const height = this.world.height;
    const decided = decide(this.world, command, this.clock, this.programs, this.options);
    const outcome = answerOf(decided, decided.kind === 'repeat' ? this.journal.find((e) => e.height === decided.first.height) : undefined);
    this.decided.push({ command, clock: this.clock, outcome, height });
    if (outcome.kind === 'journal') {
      for (const e of outcome.entries) {
        evolve(this.world, e);
        this.journal.push(e);
      }
    }
    this.clock += 1000;
    return outcome;
  }

  fresh(): string {
    return `i${++this.n}`;
  }

  turn(
    principal: string,
    object: string,
    method: string,
    body: { fields?: unknown; spell?: string; argument?: unknown; if?: { object: string; version: number }[]; try?: boolean; intent?: string } = {},
  ): Answer {
    const { intent, ...rest } = body;
    return this.run({ kind: 'turn', principal, intent: intent ?? this.fresh(), object, method, ...rest });
  }

  /** A turn whose receipt is journaled; returns the receipt. */
  act(principal: string, object: string, method: string, body: Parameters<Harness['turn']>[3] = {}): Receipt {
    const o = this.turn(principal, object, method, body);
    assert.is(o.kind, 'journal', `expected a journaled turn, got ${o.kind}: ${JSON.stringify(o).slice(0, 300)}`);
    return (o as { receipt: Receipt }).receipt;
  }

  cast(principal: string, object: string, spell: string): Receipt {
    return this.act(principal, object, 'receive', { spell });
  }

  deliver(max = 16): Answer {
    return this.run({ kind: 'deliver', max });
  }

  arrive(principal: string): Answer {
    return this.run({ kind: 'arrive', principal, name: principal.slice(principal.lastIndexOf(':') + 1) });
  }

  state(id: string): unknown {
    return plain(this.world.cards.get(id)!.state);
  }
}

/** Typed data as plain JS, for readable assertions. */
export function plain(d: unknown): unknown {
  const t = d as { tag: string; value?: unknown; fields?: { name: string; value: unknown }[]; items?: unknown[]; label?: string; payload?: unknown };
  switch (t.tag) {
    case 'natural':
      return typeof t.value === 'string' ? BigInt(t.value as string) : t.value;
    case 'label':
    case 'boolean':
      return t.value;
    case 'list':
      return t.items!.map(plain);
    case 'record': {
      const o: Record<string, unknown> = {};
      for (const f of t.fields!) Object.defineProperty(o, f.name, { value: plain(f.value), enumerable: true });
      return o;
    }
    case 'variant':
      return t.payload ? { [t.label!]: plain(t.payload) } : t.label;
  }
  return d;
}

export function refusal(o: Answer): Receipt {
  if (o.kind === 'journal' || o.kind === 'refused' || o.kind === 'repeat') {
    assert.is(o.receipt.status, 'refused', `expected a refusal, got ${JSON.stringify(o.receipt).slice(0, 400)}`);
    return o.receipt;
  }
  if (o.kind === 'try') return o.report;
  throw new Error(`no receipt in ${o.kind}: ${JSON.stringify(o).slice(0, 300)}`);
}

export function report(o: Answer): TryReport {
  assert.is(o.kind, 'try');
  return (o as { report: TryReport }).report;
}
