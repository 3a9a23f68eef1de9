/**
 * The contract between the card language (src/cards/lang: parse, resolve, type check, compile,
 * run) and the kernel (src/cards/kernel: turns, law, sends, receipts, worlds).
 *
 * The kernel only ever hands typed data (spec 2.6) in and takes typed data out; how the
 * language represents values while running is its own business. Everything here is pure and
 * deterministic: no clock (the kernel passes `now`), no randomness, no I/O.
 */
import { handleOf, isGuestName } from '../contract/names.js';
import type { TypedData } from '../contract/typed.js';

/** A turn shows the same caller again and again. */
let lastShown = { principal: '', shown: '' };

/**
 * How a principal reads on a card (spec 5.2: "cards show the guest's handle"): a guest
 * `guest:<host>:<name>` as its handle `<name>.<host without port>`, anything else (the town, a
 * card acting through a send) as it is. Only text shows it so: law, state and sends keep the
 * principal itself.
 */
export function shownPrincipal(principal: string): string {
  if (principal === lastShown.principal) return lastShown.shown;
  let shown = principal;
  if (principal.startsWith('guest:')) {
    const at = principal.lastIndexOf(':');
    const name = principal.slice(at + 1);
    if (at > 6 && isGuestName(name)) shown = handleOf(principal.slice(6, at), name);
  }
  lastShown = { principal, shown };
  return shown;
}

export interface Module {
  name: string;
  source: string;
}

export type Stage = 'parse' | 'resolve' | 'type' | 'stateType' | 'migration' | 'law';

export interface Diagnostic {
  stage: Stage;
  module: string;
  /** 1-based line and column of the start; end is exclusive. */
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  message: string;
  /** The form wanted, where one can be given (e.g. "spell fill(self: Lamp, n: Natural 0..9) -> Lamp"). */
  hint?: string;
}

/** A field of a form, derived from a parameter's type and bounds. */
export type FieldForm =
  | { kind: 'natural'; min: number; max: number }
  /** `principal`: a Principal parameter, given as `guest:<host>:<name>`, `town`, or a guest's bare name the kernel completes. */
  | { kind: 'text'; min: number; max: number; principal?: true }
  | { kind: 'object'; min: number; max: number }
  | { kind: 'oneOf'; options: string[] }
  | { kind: 'boolean' };

export interface FormField {
  name: string;
  form: FieldForm;
  /** Lower bound 0 (text, object): the field may be omitted or empty. */
  optional: boolean;
}

export interface MethodInfo {
  name: string;
  kind: 'spell' | 'view' | 'receive';
  /** Present when every parameter is formable; such a method is cast with `fields` or a spell. */
  form?: FormField[];
  /** The spell template with blanks, e.g. "fill measures=<natural 0..9>". */
  template?: string;
  /** Human-readable signature, for hints and `typeMismatch.expected`. */
  signature: string;
}

export interface LawClause {
  name: string;
  reading: string;
  /** The clause as written (one line), for `GET source`. */
  text: string;
}

export interface WantInfo {
  name: string;
  reading: string;
}

export interface Budget {
  ticks: number;
  heap: number;
  bytes: number;
}
export interface Usage {
  ticks: number;
  heap: number;
  bytes: number;
}

export interface CallContext {
  /** Principal casting the turn (guest:<host>:<name>), or the card id for a delivered send. */
  caller: string;
  owner: string;
  /** Id of the card being run. */
  self: string;
  /** The turn's clock, passed in by the kernel (milliseconds since the epoch). */
  now: number;
  /** Where the card lies (a room, or the card carrying it); '' for a card that is nowhere. */
  place?: string;
}

export interface SendEffect {
  to: string;
  method: string;
  argument: TypedData;
}
/** `move thing to place`: the kernel checks reach, ownership and the way (turn.ts, `Turn.move`). */
export interface MoveEffect {
  thing: string;
  to: string;
}
export interface MakeEffect {
  /** Name of a kind (a library module) to make, offered to the caller. */
  kind: string;
  seed?: TypedData;
}

export type RunRefusal =
  | { class: 'cardRefused'; clause: string; reading: string }
  | { class: 'budget'; reason: 'ticks' | 'heap' | 'bytes' }
  | { class: 'evaluation'; reason: string }
  | { class: 'absentItem'; reason: string }
  | { class: 'duplicateKey'; reason: string }
  | { class: 'keyTaken'; reason: string }
  /** The argument is not what the method takes; `expected` is the method's signature. */
  | { class: 'typeMismatch'; reason: string; expected: string }
  /** No spell or view of that name. */
  | { class: 'noMethod'; reason: string };

export type RunResult =
  | {
      ok: true;
      state: TypedData;
      says: string[];
      sends: SendEffect[];
      makes: MakeEffect[];
      moves: MoveEffect[];
      result: TypedData;
      usage: Usage;
    }
  | { ok: false; refusal: RunRefusal; usage: Usage };

/** A rule: `rule name: condition -> say "…"`, fired after an act when its condition holds. */
export interface RuleInfo {
  name: string;
  /** The rule as written (one line). */
  text: string;
}

export interface RuleFiring {
  name: string;
  fired: boolean;
  /** What the rule said when it fired. */
  says: string[];
}

export type RulesResult = { ok: true; rules: RuleFiring[]; says: string[]; usage: Usage } | { ok: false; refusal: RunRefusal; usage: Usage };

export interface Program {
  /** Content id of the package (modules + law text), the `pin`. */
  cid: string;
  modules: Module[];
  /** Printable description of the state type (the return type of `initial`). */
  stateType: string;
  methods: MethodInfo[];
  law: LawClause[];
  wants: WantInfo[];
  /** Build the initial state. */
  initial(budget: Budget, ctx: CallContext): RunResult;
  /** Run a spell (or `receive`) with its arguments as a record of named fields. */
  call(method: string, self: TypedData, args: TypedData, ctx: CallContext, budget: Budget): RunResult;
  /** Render a view (paint, render, page, or any `view`). */
  view(name: string, self: TypedData, viewer: string, budget: Budget): RunResult;
  /** The first law clause the change breaks, or undefined. `before` is undefined on creation. */
  checkLaw(before: TypedData | undefined, after: TypedData, ctx: CallContext): LawClause | undefined;
  /** Which wants are open for this state. */
  openWants(state: TypedData, ctx: CallContext): string[];
  /** A plain entry (a `def`) run on typed arguments, for the scratch REPL. */
  runEntry(name: string, args: TypedData[], budget: Budget): RunResult;

  // ---- added by the language (see docs/decisions/card-language-semantics.md) ----
  rules: RuleInfo[];
  /** Names of the main module's defs, runnable with `runEntry` (includes `migrate` when defined). */
  entries: string[];
  /**
   * The shape of the state type, ignoring type names and bounds: when two programs have the
   * same key, a card's state carries over without `migrate`.
   */
  stateKey: string;
  /** Whether the package programs a card (has spells, views, law, wants or rules, and an initial). */
  card: boolean;
  /** Runs the rules after an act: which fired (their condition holds on the new state) and what they said. */
  runRules(before: TypedData | undefined, after: TypedData, ctx: CallContext, budget: Budget): RulesResult;
  /** Why `state` is not a state of this program (type or bounds), or undefined when it is. */
  checkState(state: TypedData): string | undefined;
  /**
   * Plain JSON (`{"rows": [{"key": "a", …}]}`, a bare tag as text, a tag with fields as
   * `{label, payload}`) read against a spell's parameters as the typed record it takes, or why it
   * does not fit (the path and the type wanted). Bounds are the call's to check.
   */
  plainArgument(method: string, plain: unknown): { ok: true; argument: TypedData } | { ok: false; reason: string };
}

export type CompileResult = { ok: true; program: Program } | { ok: false; diagnostics: Diagnostic[] };

/** What `compile` takes: a package and, optionally, which module programs the card. */
export interface CompileInput {
  modules: Module[];
  /** Law text beside the package: clauses one a line (`name: predicate -- "reading"`). */
  law?: string;
  /** The def that builds the first state (default `initial`). */
  entry?: string;
  /** The module that programs the card (default: the first module). */
  kind?: string;
}

/** A library is a set of named modules a program may `use` by name. */
export interface Library {
  modules: Map<string, Module>;
  /** Library pages (markdown) by module name, for `/library`. */
  pages?: Map<string, string>;
}
