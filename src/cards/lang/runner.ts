/**
 * A compiled package as the kernel sees it (the Program of ../program.ts): typed data in,
 * typed data out, every run metered, every failure a refusal value. Nothing thrown by card
 * code escapes; a refused run hands back no effects, only its usage.
 */
import type { Budget, CallContext, LawClause, MethodInfo, Module, Program, RuleInfo, RulesResult, RunRefusal, RunResult, Usage, WantInfo } from '../program.js';
import { emptyRecord, type TypedData } from '../../contract/typed.js';
import { Mismatch, checkBounds, fromTyped, hasBounds, plainToTyped, toTyped } from './boundary.js';
import type { CheckedModule } from './check.js';
import { compileClause, compileFn } from './compiler.js';
import { clauseCost } from './compiler/cost.js';
import type { Ev } from './compiler/expressions.js';
import { methodInfo } from './forms.js';
import type { FnSym } from './ir.js';
import { Rt, sizeOf, utf8Length } from './meter.js';
import { recordTy, shapeKey, showFull, type RecordTy, type Ty } from './types.js';
import { Halt, type Value } from './values.js';

/** What one law clause or want may spend: generous, fixed, so checking is deterministic. */
export const clauseBudget: Budget = { ticks: 100_000, heap: 1 << 20, bytes: 0 };

interface Clause {
  info: { name: string; reading: string; text: string };
  pred: Ev;
  say?: Ev;
  slots: number;
  cost: number;
}

const zero: Usage = { ticks: 0, heap: 0, bytes: 0 };

function sane(b: Budget): Budget {
  const n = (x: unknown): number => (typeof x === 'number' && x >= 0 ? Math.min(Math.floor(x), Number.MAX_SAFE_INTEGER) : 0);
  return { ticks: n(b?.ticks), heap: n(b?.heap), bytes: n(b?.bytes) };
}

/** Any throw from a run, as a refusal. */
export function refusalOf(e: unknown): RunRefusal {
  if (e instanceof Halt) return e.refusal;
  if (e instanceof RangeError) return { class: 'evaluation', reason: 'call too deep' };
  if (e instanceof Mismatch) return { class: 'evaluation', reason: e.reason };
  return { class: 'evaluation', reason: `the card could not be run: ${e instanceof Error ? e.message : String(e)}` };
}

/** Every module a main module reaches, itself first. */
function reach(m: CheckedModule, out: CheckedModule[] = []): CheckedModule[] {
  if (out.includes(m)) return out;
  out.push(m);
  for (const u of m.uses.values()) reach(u, out);
  return out;
}

export class CompiledProgram implements Program {
  readonly stateType: string;
  readonly stateKey: string;
  readonly methods: MethodInfo[];
  readonly law: LawClause[];
  readonly wants: WantInfo[];
  readonly rules: RuleInfo[];
  readonly entries: string[];
  readonly card: boolean;
  readonly state: Ty | undefined;
  private readonly spells = new Map<string, FnSym>();
  private readonly views = new Map<string, FnSym>();
  private readonly defs = new Map<string, FnSym>();
  private readonly lawC: Clause[];
  private readonly wantC: Clause[];
  private readonly ruleC: Clause[];
  private readonly argTypes = new Map<string, RecordTy>();
  private readonly bounded: boolean;

  constructor(
    readonly cid: string,
    readonly modules: Module[],
    readonly main: CheckedModule,
  ) {
    for (const m of reach(main)) for (const f of m.fns.values()) compileFn(f);
    this.state = main.state;
    this.stateType = main.state ? showFull(main.state) : 'none';
    this.stateKey = main.state ? shapeKey(main.state) : '';
    this.bounded = main.state ? hasBounds(main.state) : false;
    this.card = main.card && main.initial !== undefined;
    for (const s of main.spells) {
      this.spells.set(s.name, s);
      this.argTypes.set(s.name, recordTy(s.params.slice(1).map((p) => ({ name: p.name, ty: p.ty }))));
    }
    for (const v of main.views) this.views.set(v.name, v);
    for (const f of main.fns.values()) if (f.kind === 'def') this.defs.set(f.name, f);
    this.entries = [...this.defs.keys()];
    this.methods = [...main.spells, ...main.views].map(methodInfo);
    const clause = (c: import('./ir.js').CheckedClause): Clause => ({
      info: { name: c.name, reading: c.reading, text: c.text },
      ...compileClause(c),
      cost: clauseCost(c),
    });
    this.lawC = main.law.map(clause);
    this.wantC = main.wants.map(clause);
    this.ruleC = main.rules.map(clause);
    this.law = this.lawC.map((c) => ({ ...c.info }));
    this.wants = this.wantC.map((c) => ({ name: c.info.name, reading: c.info.reading }));
    this.rules = this.ruleC.map((c) => ({ name: c.info.name, text: c.info.text }));
  }

  /** Runs `body` under the budget and turns its outcome into a RunResult. */
  private run(budget: Budget, ctx: CallContext | null, body: (rt: Rt) => { state: TypedData; result?: TypedData }): RunResult {
    const rt = new Rt(sane(budget), ctx);
    try {
      const out = body(rt);
      const result = rt.result ?? out.result ?? emptyRecord;
      let bytes = sizeOf(out.state) + sizeOf(result);
      for (const s of rt.says) bytes += utf8Length(s) + 1;
      for (const s of rt.sends) bytes += utf8Length(s.to) + utf8Length(s.method) + sizeOf(s.argument);
      for (const m of rt.makes) bytes += utf8Length(m.kind) + (m.seed ? sizeOf(m.seed) : 0);
      for (const m of rt.moves) bytes += utf8Length(m.thing) + utf8Length(m.to);
      if (bytes > rt.budget.bytes) return { ok: false, refusal: { class: 'budget', reason: 'bytes' }, usage: rt.usage(bytes) };
      return { ok: true, state: out.state, says: rt.says, sends: rt.sends, makes: rt.makes, moves: rt.moves, result, usage: rt.usage(bytes) };
    } catch (e) {
      return { ok: false, refusal: refusalOf(e), usage: rt.usage(0) };
    }
  }

  private stateOut(v: Value): TypedData {
    const t = this.state!;
    if (this.bounded) {
      try {
        checkBounds(t, v);
      } catch (e) {
        if (e instanceof Mismatch) throw new Halt({ class: 'cardRefused', clause: 'bounds', reading: e.reason });
        throw e;
      }
    }
    return toTyped(t, v);
  }

  private stateIn(d: TypedData): Value {
    try {
      return fromTyped(this.state!, d);
    } catch (e) {
      if (e instanceof Mismatch) throw new Halt({ class: 'evaluation', reason: `the card's state does not fit its program: ${e.reason}` });
      throw e;
    }
  }

  initial(budget: Budget, ctx: CallContext): RunResult {
    const init = this.main.initial;
    if (!init || !this.state)
      return { ok: false, refusal: { class: 'evaluation', reason: `${this.main.name} has no initial(): it programs no card` }, usage: zero };
    return this.run(budget, ctx, (rt) => {
      const env = new Array<Value>(init.slots ?? 0);
      rt.depth = 1;
      return { state: this.stateOut(init.exec!(env, rt)) };
    });
  }

  call(method: string, self: TypedData, args: TypedData, ctx: CallContext, budget: Budget): RunResult {
    const fn = this.spells.get(method);
    if (!fn || !this.state) {
      return {
        ok: false,
        refusal: { class: 'noMethod', reason: `${this.main.name} has no spell ${method}; its spells: ${[...this.spells.keys()].join(', ') || 'none'}` },
        usage: zero,
      };
    }
    const argTy = this.argTypes.get(method)!;
    let argv: Value[];
    try {
      argv = fromTyped(argTy, args ?? emptyRecord, '', 0, true) as Value[];
    } catch (e) {
      const reason = e instanceof Mismatch ? e.reason : 'the argument is not typed data';
      return { ok: false, refusal: { class: 'typeMismatch', reason, expected: methodInfo(fn).template ?? methodInfo(fn).signature }, usage: zero };
    }
    return this.run(budget, ctx, (rt) => {
      const env = new Array<Value>(fn.slots ?? fn.params.length);
      env[0] = this.stateIn(self);
      for (let i = 1; i < fn.params.length; i++) env[i] = argv[argTy.slot.get(fn.params[i]!.name)!]!;
      rt.depth = 1;
      return { state: this.stateOut(fn.exec!(env, rt)) };
    });
  }

  view(name: string, self: TypedData, viewer: string, budget: Budget): RunResult {
    const fn = this.views.get(name);
    if (!fn || !this.state) return { ok: false, refusal: { class: 'noMethod', reason: `${this.main.name} has no view ${name}` }, usage: zero };
    return this.run(budget, null, (rt) => {
      const env = new Array<Value>(fn.slots ?? 2);
      env[0] = this.stateIn(self);
      env[1] = typeof viewer === 'string' ? viewer : '';
      rt.depth = 1;
      const text = fn.exec!(env, rt) as string;
      return { state: self, result: { tag: 'label', value: text } };
    });
  }

  private clauseHolds(c: Clause, after: Value, before: Value, ctx: CallContext): boolean {
    const rt = new Rt(clauseBudget, ctx);
    const env = new Array<Value>(c.slots);
    env[0] = after;
    env[1] = before;
    try {
      rt.tick(c.cost);
      return c.pred(env, rt) === true;
    } catch {
      return false;
    }
  }

  checkLaw(before: TypedData | undefined, after: TypedData, ctx: CallContext): LawClause | undefined {
    if (!this.lawC.length || !this.state) return undefined;
    let a: Value;
    let b: Value;
    try {
      a = fromTyped(this.state, after);
      b = before === undefined ? a : fromTyped(this.state, before);
    } catch (e) {
      // The kernel checks a state's fit before its law; should one reach here, name what failed
      // (its bounds), never a clause that may well hold.
      return { name: 'bounds', reading: e instanceof Mismatch ? e.reason : 'the state does not fit the card', text: '' };
    }
    for (let i = 0; i < this.lawC.length; i++) {
      if (!this.clauseHolds(this.lawC[i]!, a, b, ctx)) return this.law[i];
    }
    return undefined;
  }

  openWants(state: TypedData, ctx: CallContext): string[] {
    if (!this.wantC.length || !this.state) return [];
    let s: Value;
    try {
      s = fromTyped(this.state, state);
    } catch {
      return this.wantC.map((w) => w.info.name);
    }
    return this.wantC.filter((w) => !this.clauseHolds(w, s, s, ctx)).map((w) => w.info.name);
  }

  runRules(before: TypedData | undefined, after: TypedData, ctx: CallContext, budget: Budget): RulesResult {
    if (!this.ruleC.length || !this.state) return { ok: true, rules: [], says: [], usage: zero };
    const rt = new Rt(sane(budget), ctx);
    try {
      const a = this.stateIn(after);
      const b = before === undefined ? a : this.stateIn(before);
      // Each rule runs on its own allowance of clauseBudget's ticks (docs/cards.md, Metering),
      // taken from what the turn has left: a rule never spends more than 100,000, nor more than
      // the turn still has; what it spent counts against the turn.
      const rules = this.ruleC.map((r) => {
        const left = rt.left;
        const allowance = Math.min(left, clauseBudget.ticks);
        rt.left = allowance;
        try {
          const env = new Array<Value>(r.slots);
          env[0] = a;
          env[1] = b;
          rt.tick(r.cost);
          if (r.pred(env, rt) !== true) return { name: r.info.name, fired: false, says: [] };
          return { name: r.info.name, fired: true, says: [r.say!(env, rt) as string] };
        } finally {
          rt.left = left - (allowance - rt.left);
        }
      });
      const says = rules.flatMap((r) => r.says);
      const bytes = says.reduce((n, s) => n + utf8Length(s) + 1, 0);
      if (bytes > rt.budget.bytes) return { ok: false, refusal: { class: 'budget', reason: 'bytes' }, usage: rt.usage(bytes) };
      return { ok: true, rules, says, usage: rt.usage(bytes) };
    } catch (e) {
      return { ok: false, refusal: refusalOf(e), usage: rt.usage(0) };
    }
  }

  runEntry(name: string, args: TypedData[], budget: Budget): RunResult {
    const fn = this.defs.get(name);
    if (!fn)
      return {
        ok: false,
        refusal: { class: 'noMethod', reason: `${this.main.name} has no def ${name}; its defs: ${this.entries.join(', ') || 'none'}` },
        usage: zero,
      };
    const sig = `def ${name}(${fn.params.map((p) => `${p.name}: ${showFull(p.ty)}`).join(', ')}) -> ${showFull(fn.ret)}`;
    if (!Array.isArray(args) || args.length !== fn.params.length) {
      return {
        ok: false,
        refusal: {
          class: 'typeMismatch',
          reason: `${name} takes ${fn.params.length} argument${fn.params.length === 1 ? '' : 's'}, given ${Array.isArray(args) ? args.length : 0}`,
          expected: sig,
        },
        usage: zero,
      };
    }
    let argv: Value[];
    try {
      argv = fn.params.map((p, i) => fromTyped(p.ty, args[i]!, p.name));
    } catch (e) {
      return { ok: false, refusal: { class: 'typeMismatch', reason: e instanceof Mismatch ? e.reason : 'not typed data', expected: sig }, usage: zero };
    }
    return this.run(budget, null, (rt) => {
      const env = new Array<Value>(fn.slots ?? argv.length);
      argv.forEach((v, i) => (env[i] = v));
      rt.depth = 1;
      const v = fn.exec!(env, rt);
      return { state: emptyRecord, result: toTyped(fn.ret, v) };
    });
  }

  plainArgument(method: string, plain: unknown): { ok: true; argument: TypedData } | { ok: false; reason: string } {
    const argTy = this.argTypes.get(method);
    if (!argTy) return { ok: false, reason: `${this.main.name} has no spell ${method}; its spells: ${[...this.spells.keys()].join(', ') || 'none'}` };
    try {
      return { ok: true, argument: plainToTyped(argTy, plain) };
    } catch (e) {
      return { ok: false, reason: e instanceof Mismatch ? e.reason : 'not plain JSON' };
    }
  }

  checkState(state: TypedData): string | undefined {
    if (!this.state) return 'this program has no state type';
    try {
      const v = fromTyped(this.state, state);
      if (this.bounded) checkBounds(this.state, v);
      return undefined;
    } catch (e) {
      return e instanceof Mismatch ? e.reason : 'not typed data';
    }
  }
}
