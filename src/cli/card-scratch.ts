/**
 * A throwaway scratch world in memory, driven exactly as the host drives one: an `empty` world
 * with the sealed library opened by its owner, a `create` as the scratch `objects` route makes
 * it, turns decided by the kernel and evolved into the world, and after every journaled turn the
 * queued sends delivered (up to 16), as the world service does. Nothing here runs card code
 * itself: every step is the kernel's `decide`.
 */
import type { Command, CreateCommand, ReplCommand, TurnCommand } from '../cards/kernel/commands.js';
import { decide } from '../cards/kernel/decide.js';
import { answerOf, type Answer, type Outcome } from '../cards/kernel/outcome.js';
import type { Card, Entry } from '../cards/kernel/entry.js';
import { evolve } from '../cards/kernel/evolve.js';
import { libraryPrograms } from '../cards/kernel/library.js';
import { defaultOptions, type KernelOptions } from '../cards/kernel/options.js';
import type { Programs } from '../cards/kernel/programs.js';
import { blankWorld, visibleCard, type World } from '../cards/kernel/world.js';
import { cardProgram, drawView } from '../cards/kernel/reading.js';
import type { MethodInfo, RunResult } from '../cards/program.js';
import type { TypedData } from '../contract/typed.js';
import type { Clock } from '../contract/clock.js';
import { limits } from '../contract/limits.js';
import { principalOf } from '../contract/names.js';

/** The host part of the principals the command line casts as (`guest:town:ann`). */
export const scratchHost = 'town';
export const guestPrincipal = (name: string) => principalOf(scratchHost, name);

let shared: Programs | undefined;
/** The library's programs, compiled once per process (as the server keeps them). */
export function scratchPrograms(): Programs {
  return (shared ??= libraryPrograms());
}

export interface Decision {
  outcome: Answer;
  /** Height of the world once the decision (and any deliveries) were applied. */
  height: number;
  deliveries?: Entry[];
}

export class ScratchWorld {
  readonly world: World = blankWorld();
  /** Every entry by height: the world's journal, in memory (a repeat's first receipt is read from it). */
  private readonly journal: Entry[] = [];
  private intents = 0;

  constructor(
    /** The principal who opened the world (its opener). */
    readonly opener: string,
    private readonly clock: Clock,
    private readonly programs: Programs = scratchPrograms(),
    private readonly options: KernelOptions = defaultOptions,
  ) {
    const opened = this.apply({ kind: 'empty', name: 'scratch', host: scratchHost, opener });
    if (opened.outcome.kind !== 'journal') throw new Error(`an empty world decided ${opened.outcome.kind}`);
  }

  /** A fresh intent per request: the command line never repeats one. */
  intent(): string {
    return `cli:${++this.intents}`;
  }

  create(cmd: Omit<CreateCommand, 'kind' | 'intent' | 'entry'>): Decision {
    return this.apply({ kind: 'create', intent: this.intent(), entry: 'initial', ...cmd });
  }

  /** A spell sent to `receive` of `object`, as `POST world/{object}/receive {intent, spell}`. */
  cast(principal: string, object: string, spell: string, trying: boolean): Decision {
    const cmd: TurnCommand = { kind: 'turn', principal, intent: this.intent(), object, method: 'receive', spell };
    if (trying) cmd.try = true;
    return this.apply(cmd);
  }

  /** A method cast with typed data, as `POST world/{object}/{method} {intent, argument}`. */
  call(principal: string, object: string, method: string, argument: TypedData, trying: boolean): Decision {
    const cmd: TurnCommand = { kind: 'turn', principal, intent: this.intent(), object, method, argument };
    if (trying) cmd.try = true;
    return this.apply(cmd);
  }

  /** A view of `object` drawn for `viewer`, as a page draws it; undefined when the viewer cannot see the card. */
  view(object: string, name: string, viewer: string): { methods: MethodInfo[]; drawn: RunResult } | undefined {
    const card = this.card(object, viewer);
    if (!card) return undefined;
    const program = cardProgram(this.world, this.programs, card);
    if (!program) return undefined;
    return { methods: program.methods, drawn: drawView(program, card, name, viewer, this.options.budget) };
  }

  repl(cmd: Omit<ReplCommand, 'kind' | 'intent'>): Decision {
    return this.apply({ kind: 'repl', intent: this.intent(), ...cmd });
  }

  card(object: string, viewer: string): Card | undefined {
    return visibleCard(this.world, object, viewer);
  }

  private decide(command: Command): Outcome {
    return decide(this.world, command, this.clock(), this.programs, this.options);
  }

  private evolve(entries: readonly Entry[]): void {
    for (const e of entries) {
      evolve(this.world, e);
      this.journal[e.height] = e;
    }
  }

  private apply(command: Command): Decision {
    const outcome = this.decide(command);
    if (outcome.kind === 'repeat')
      return { outcome: answerOf(outcome, outcome.first.carried ? undefined : this.journal[outcome.first.height]), height: this.world.height };
    if (outcome.kind !== 'journal') return { outcome, height: this.world.height };
    this.evolve(outcome.entries);
    // The world service delivers queued sends after every journaled turn, in the same batch.
    if (command.kind !== 'turn' || this.world.pending.size === 0) return { outcome, height: this.world.height };
    const delivered = this.decide({ kind: 'deliver', max: limits.deliverPerCall });
    if (delivered.kind !== 'journal') return { outcome, height: this.world.height };
    this.evolve(delivered.entries);
    return { outcome, height: this.world.height, deliveries: delivered.entries };
  }
}
