/**
 * A world under test: decide commands against it, apply what they journal, keep the journal
 * and the commands that produced it (for replay and re-decision checks). `given(h)` specifies
 * the world decider given/when/then from what a harness journaled (test/support/given.ts).
 */
import * as assert from 'uvu/assert';
import type { Command, TurnCommand } from '../../../src/cards/kernel/commands.js';
import { decide, worldDecider, type WorldContext } from '../../../src/cards/kernel/decide.js';
import type { Entry } from '../../../src/cards/kernel/entry.js';
import { answerOf, type Answer, type Outcome, type Receipt, type TryReport } from '../../../src/cards/kernel/outcome.js';
import { evolve } from '../../../src/cards/kernel/evolve.js';
import { defaultOptions, type KernelOptions } from '../../../src/cards/kernel/options.js';
import type { Programs } from '../../../src/cards/kernel/programs.js';
import { blankWorld, type World } from '../../../src/cards/kernel/world.js';
import { specification, type Read, type Shape } from '../../support/given.js';
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
  /** Called with each journaled entry before it is applied (a world's history listens here). */
  beforeEvolve?: (entry: Entry) => void;
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
        this.beforeEvolve?.(e);
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

export function refusal(o: Answer | Outcome): Receipt {
  if (o.kind === 'journal' || o.kind === 'refused' || (o.kind === 'repeat' && 'receipt' in o)) {
    assert.is(o.receipt.status, 'refused', `expected a refusal, got ${JSON.stringify(o.receipt).slice(0, 400)}`);
    return o.receipt;
  }
  if (o.kind === 'try') return o.report;
  throw new Error(`no receipt in ${o.kind}: ${JSON.stringify(o).slice(0, 300)}`);
}

export function report(o: Answer | Outcome): TryReport {
  assert.is(o.kind, 'try');
  return (o as { report: TryReport }).report;
}

/**
 * How a world's outcome reads in a specification: the entries it journals (a refusal journaled
 * is an entry too, its receipt `refused`), `nothing` as no entries, a refusal nothing is
 * journaled for as a refusal (its receipt); anything else (a repeat, a try, a value…) by kind.
 */
export function readWorld(o: Outcome): Read<Entry, Receipt> {
  switch (o.kind) {
    case 'journal':
      return { events: o.entries };
    case 'nothing':
      return { events: [] };
    case 'refused':
      return { refused: o.receipt };
    default:
      return { other: o.kind };
  }
}

/**
 * Given what `h` journaled (or `entries`), when a command is decided at `h`'s clock, programs
 * and options, then… (test/support/given.ts). The world is folded afresh from the entries, so
 * `h` itself is left as it was.
 */
export function given(h: Harness, entries: readonly Entry[] = h.journal) {
  return specification(worldDecider, { read: readWorld, context: (): WorldContext => [h.clock, h.programs, h.options] })(entries);
}

let intents = 0;

/** A guest's turn, under a fresh intent unless the body names one. */
export function turn(
  principal: string,
  object: string,
  method: string,
  body: Omit<TurnCommand, 'kind' | 'principal' | 'object' | 'method' | 'intent'> & { intent?: string } = {},
): TurnCommand {
  const { intent, ...rest } = body;
  return { kind: 'turn', principal, object, method, intent: intent ?? `spec-${++intents}`, ...rest };
}

/**
 * One journaled refusal, as `thenMatches` takes it: an entry whose receipt refuses as given and
 * which carries nothing of the run (a refused turn rolls back whole: no writes, cards, offers
 * or sends).
 */
export function journaledRefusal(receipt: Shape<Receipt>): Shape<Entry>[] {
  return [{ receipt: { status: 'refused', ...receipt }, writes: undefined, made: undefined, offers: undefined, sends: undefined }];
}
