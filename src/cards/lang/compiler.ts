/**
 * The checked tree to JS closures, once per pinned package. A statement's closure charges its
 * own cost in ticks (one per node it is written with) before it runs, so metering costs one
 * subtraction per statement, not one per node.
 */
import { shownPrincipal } from '../program.js';
import { toTyped } from './boundary.js';
import type { CheckedClause, E, FnSym, S } from './ir.js';
import { type Rt, maxCallDepth, outOfTicks, tooDeep } from './meter.js';
import type { Ty } from './types.js';
import { Halt, Tagged, add, display, div, eq, limbs, mod, mul, norm, sub, type Value } from './values.js';

export type Ev = (env: Value[], rt: Rt) => Value;
/** Runs a statement: undefined to go on, or the value returned. */
export type Ex = (env: Value[], rt: Rt) => Value | undefined;

const MAX = Number.MAX_SAFE_INTEGER;

/** Ticks a node costs: one per node of the expression, not counting the bodies of calls. */
export function nodes(e: E): number {
  switch (e.k) {
    case 'const':
    case 'local':
    case 'ctx':
      return 1;
    case 'text':
      return 1 + e.parts.reduce((n, p) => n + (typeof p === 'string' ? 0 : nodes(p.e)), 0);
    case 'field':
      return 1 + nodes(e.obj);
    case 'index':
      return 1 + nodes(e.obj) + nodes(e.idx);
    case 'call':
    case 'builtin':
      return 1 + e.args.reduce((n, a) => n + nodes(a), 0);
    case 'record':
    case 'list':
      return 1 + e.items.reduce((n, a) => n + nodes(a), 0);
    case 'update':
      return 1 + nodes(e.obj) + e.sets.reduce((n, [, a]) => n + nodes(a), 0);
    case 'ctor':
      return 1 + (e.fields ?? []).reduce((n, a) => n + nodes(a), 0);
    case 'arith':
    case 'concat':
    case 'cmp':
    case 'eq':
    case 'and':
    case 'or':
      return 1 + nodes(e.l) + nodes(e.r);
    case 'not':
      return 1 + nodes(e.e);
  }
}

/**
 * Charges arithmetic on big naturals by its size before doing it, so a loop that squares a
 * number cannot spend seconds or gigabytes inside one tick: ticks for the work (limbs, or
 * limbs × limbs / 16 for * / %), heap for the result.
 */
function bigWork(rt: Rt, a: Value, b: Value, op: '+' | '-' | '*' | '/' | '%'): void {
  const la = limbs(a);
  const lb = limbs(b);
  if (op === '*') {
    rt.tick(Math.ceil((la * lb) / 16));
    rt.alloc(16 + 8 * (la + lb));
  } else if (op === '/' || op === '%') {
    rt.tick(Math.ceil((la * lb) / 16));
    rt.alloc(16 + 8 * la);
  } else {
    rt.tick(Math.max(la, lb));
    rt.alloc(16 + 8 * (Math.max(la, lb) + 1));
  }
}

function evaluation(reason: string): never {
  throw new Halt({ class: 'evaluation', reason });
}

export function compileExpr(e: E): Ev {
  switch (e.k) {
    case 'const': {
      const v = e.v;
      return () => v;
    }
    case 'local': {
      const s = e.slot;
      return (env) => env[s]!;
    }
    case 'ctx': {
      switch (e.name) {
        case 'caller':
          return (_, rt) => rt.ctx!.caller;
        case 'owner':
          return (_, rt) => rt.ctx!.owner;
        case 'this':
          return (_, rt) => rt.ctx!.self;
        case 'now':
          return (_, rt) => {
            const n = rt.ctx!.now;
            return Number.isSafeInteger(n) && n >= 0 ? n : 0;
          };
      }
      break;
    }
    case 'text': {
      const parts = e.parts.map((p) =>
        typeof p === 'string' ? p : { ev: compileExpr(p.e), ty: p.ty, principal: p.ty.k === 'text' && p.ty.sub === 'Principal' },
      );
      return (env, rt) => {
        let s = '';
        for (const p of parts) {
          if (typeof p === 'string') s += p;
          else {
            const v = p.ev(env, rt);
            // a principal reads as the guest's handle (spec 5.2), as display() shows it
            s += typeof v === 'string' ? (p.principal ? shownPrincipal(v) : v) : display(v, p.ty);
          }
        }
        rt.alloc(8 + s.length);
        return s;
      };
    }
    case 'field': {
      const o = compileExpr(e.obj);
      const s = e.slot;
      return (env, rt) => (o(env, rt) as Value[])[s]!;
    }
    case 'index': {
      const o = compileExpr(e.obj);
      const i = compileExpr(e.idx);
      return (env, rt) => {
        const xs = o(env, rt) as Value[];
        const k = i(env, rt);
        if (typeof k !== 'number' || k >= xs.length) evaluation(`index ${k} is past the end of a list of ${xs.length}`);
        return xs[k]!;
      };
    }
    case 'call':
      return compileCall(e.fn, e.args.map(compileExpr));
    case 'builtin': {
      const args = e.args.map(compileExpr);
      const b = e.b;
      const tys = e.tys;
      if (args.length === 1) {
        const a0 = args[0]!;
        return (env, rt) => b.run([a0(env, rt)], rt, tys);
      }
      if (args.length === 2) {
        const a0 = args[0]!;
        const a1 = args[1]!;
        return (env, rt) => b.run([a0(env, rt), a1(env, rt)], rt, tys);
      }
      return (env, rt) =>
        b.run(
          args.map((a) => a(env, rt)),
          rt,
          tys,
        );
    }
    case 'record':
    case 'list': {
      const items = e.items.map(compileExpr);
      const size = 16 + 8 * items.length;
      return (env, rt) => {
        rt.alloc(size);
        const out = new Array<Value>(items.length);
        for (let i = 0; i < items.length; i++) out[i] = items[i]!(env, rt);
        return out;
      };
    }
    case 'update': {
      const o = compileExpr(e.obj);
      const sets = e.sets.map(([s, x]) => [s, compileExpr(x)] as const);
      return (env, rt) => {
        const src = o(env, rt) as Value[];
        rt.alloc(16 + 8 * src.length);
        const out = src.slice();
        for (const [s, x] of sets) out[s] = x(env, rt);
        return out;
      };
    }
    case 'ctor': {
      const tag = e.tag;
      if (!e.fields) {
        const v = new Tagged(tag, null);
        return () => v;
      }
      const fields = e.fields.map(compileExpr);
      const size = 32 + 8 * fields.length;
      return (env, rt) => {
        rt.alloc(size);
        return new Tagged(
          tag,
          fields.map((f) => f(env, rt)),
        );
      };
    }
    case 'arith': {
      const l = compileExpr(e.l);
      const r = compileExpr(e.r);
      switch (e.op) {
        case '+':
          return (env, rt) => {
            const a = l(env, rt);
            const b = r(env, rt);
            if (typeof a === 'number' && typeof b === 'number') {
              const x = a + b;
              if (x <= MAX) return x;
            }
            bigWork(rt, a, b, '+');
            return add(a, b);
          };
        case '-':
          return (env, rt) => {
            const a = l(env, rt);
            const b = r(env, rt);
            if (typeof a === 'number' && typeof b === 'number' && b <= a) return a - b;
            bigWork(rt, a, b, '-');
            return sub(a, b);
          };
        case '*':
          return (env, rt) => {
            const a = l(env, rt);
            const b = r(env, rt);
            if (typeof a === 'number' && typeof b === 'number') {
              const x = a * b;
              if (x <= MAX) return x;
            }
            bigWork(rt, a, b, '*');
            return mul(a, b);
          };
        case '/':
          return (env, rt) => {
            const a = l(env, rt);
            const b = r(env, rt);
            if (typeof a !== 'number' || typeof b !== 'number') bigWork(rt, a, b, '/');
            return div(a, b);
          };
        case '%':
          return (env, rt) => {
            const a = l(env, rt);
            const b = r(env, rt);
            if (typeof a !== 'number' || typeof b !== 'number') bigWork(rt, a, b, '%');
            return mod(a, b);
          };
      }
      break;
    }
    case 'concat': {
      const l = compileExpr(e.l);
      const r = compileExpr(e.r);
      if (e.list) {
        return (env, rt) => {
          const a = l(env, rt) as Value[];
          const b = r(env, rt) as Value[];
          rt.alloc(16 + 8 * (a.length + b.length));
          return a.concat(b);
        };
      }
      return (env, rt) => {
        const s = (l(env, rt) as string) + (r(env, rt) as string);
        rt.alloc(8 + s.length);
        return s;
      };
    }
    case 'cmp': {
      const l = compileExpr(e.l);
      const r = compileExpr(e.r);
      switch (e.op) {
        case '<':
          return (env, rt) => (l(env, rt) as number) < (r(env, rt) as number);
        case '<=':
          return (env, rt) => (l(env, rt) as number) <= (r(env, rt) as number);
        case '>':
          return (env, rt) => (l(env, rt) as number) > (r(env, rt) as number);
        case '>=':
          return (env, rt) => (l(env, rt) as number) >= (r(env, rt) as number);
      }
      break;
    }
    case 'eq': {
      const l = compileExpr(e.l);
      const r = compileExpr(e.r);
      const neg = e.neg;
      return (env, rt) => {
        const a = l(env, rt);
        const b = r(env, rt);
        if (typeof a !== 'object' || typeof b !== 'object') return (a === b) !== neg;
        const c = rt.count;
        c.n = 0;
        const same = eq(a, b, c);
        rt.tick(c.n);
        return same !== neg;
      };
    }
    case 'and': {
      const l = compileExpr(e.l);
      const r = compileExpr(e.r);
      return (env, rt) => (l(env, rt) as boolean) && (r(env, rt) as boolean);
    }
    case 'or': {
      const l = compileExpr(e.l);
      const r = compileExpr(e.r);
      return (env, rt) => (l(env, rt) as boolean) || (r(env, rt) as boolean);
    }
    case 'not': {
      const x = compileExpr(e.e);
      return (env, rt) => !(x(env, rt) as boolean);
    }
  }
  throw new Error(`compiler: unknown node ${(e as E).k}`);
}

/** How deep the closures of an expression nest. */
function exprDepth(e: E): number {
  switch (e.k) {
    case 'const':
    case 'local':
    case 'ctx':
      return 1;
    case 'text':
      return 1 + Math.max(0, ...e.parts.map((p) => (typeof p === 'string' ? 0 : exprDepth(p.e))));
    case 'field':
      return 1 + exprDepth(e.obj);
    case 'index':
      return 1 + Math.max(exprDepth(e.obj), exprDepth(e.idx));
    case 'call':
    case 'builtin':
      return 2 + Math.max(0, ...e.args.map(exprDepth));
    case 'record':
    case 'list':
      return 1 + Math.max(0, ...e.items.map(exprDepth));
    case 'update':
      return 1 + Math.max(exprDepth(e.obj), ...e.sets.map(([, x]) => exprDepth(x)));
    case 'ctor':
      return 1 + Math.max(0, ...(e.fields ?? []).map(exprDepth));
    case 'not':
      return 1 + exprDepth(e.e);
    default:
      return 1 + Math.max(exprDepth(e.l), exprDepth(e.r));
  }
}

/** How deep the closures of a block nest (statements within statements, and their expressions). */
function blockDepth(ss: S[]): number {
  let d = 0;
  for (const s of ss) {
    let x = 1;
    switch (s.k) {
      case 'set':
      case 'setPath':
      case 'return':
      case 'say':
      case 'result':
        x += exprDepth(s.e);
        break;
      case 'if':
        x += Math.max(...s.branches.map(([c, b]) => Math.max(exprDepth(c), blockDepth(b))), s.otherwise ? blockDepth(s.otherwise) : 0);
        break;
      case 'match':
        x += Math.max(exprDepth(s.subject), ...s.cases.map((c) => (c ? blockDepth(c.body) : 0)), s.rest ? blockDepth(s.rest) : 0);
        break;
      case 'forList':
        x += Math.max(exprDepth(s.list), blockDepth(s.body));
        break;
      case 'forRange':
        x += Math.max(exprDepth(s.from), exprDepth(s.to), blockDepth(s.body));
        break;
      case 'while':
        x += Math.max(exprDepth(s.cond), blockDepth(s.body));
        break;
      case 'send':
        x += Math.max(exprDepth(s.target), exprDepth(s.arg));
        break;
      case 'make':
        x += s.seed ? exprDepth(s.seed) : 0;
        break;
      case 'refuse':
        x += exprDepth(s.reading);
        break;
      case 'pass':
        break;
    }
    d = Math.max(d, x);
  }
  return d;
}

/**
 * What one call of a function counts toward `maxCallDepth`: 1 for an ordinary body, more for a
 * body whose closures nest deep, so the language's limit is always reached long before the JS
 * stack's, whatever the code looks like, and a deep recursion fails the same way everywhere.
 */
export function callWeight(fn: FnSym): number {
  return Math.max(1, Math.ceil(blockDepth(fn.body ?? []) / 8));
}

function compileCall(fn: FnSym, args: Ev[]): Ev {
  const n = args.length;
  return (env, rt) => {
    const frame = new Array<Value>(fn.slots ?? n);
    for (let i = 0; i < n; i++) frame[i] = args[i]!(env, rt);
    const w = fn.weight!;
    if ((rt.depth += w) > maxCallDepth) throw tooDeep;
    const v = fn.exec!(frame, rt);
    rt.depth -= w;
    return v;
  };
}

function setIn(obj: Value[], path: number[], i: number, v: Value, rt: Rt): Value[] {
  rt.alloc(16 + 8 * obj.length);
  const c = obj.slice();
  const k = path[i]!;
  c[k] = i === path.length - 1 ? v : setIn(obj[k] as Value[], path, i + 1, v, rt);
  return c;
}

export function compileBlock(ss: S[]): Ex {
  const xs = ss.map(compileStmt);
  if (xs.length === 0) return () => undefined;
  if (xs.length === 1) return xs[0]!;
  if (xs.length === 2) {
    const [a, b] = xs as [Ex, Ex];
    return (env, rt) => {
      const r = a(env, rt);
      return r !== undefined ? r : b(env, rt);
    };
  }
  return (env, rt) => {
    for (let i = 0; i < xs.length; i++) {
      const r = xs[i]!(env, rt);
      if (r !== undefined) return r;
    }
    return undefined;
  };
}

function cost(s: S): number {
  switch (s.k) {
    case 'set':
    case 'setPath':
    case 'return':
    case 'say':
    case 'result':
      return 1 + nodes(s.e);
    case 'if':
      return 1 + nodes(s.branches[0]![0]);
    case 'match':
      return 1 + nodes(s.subject);
    case 'forList':
      return 1 + nodes(s.list);
    case 'forRange':
      return 1 + nodes(s.from) + nodes(s.to);
    case 'while':
      return 0;
    case 'send':
      return 1 + nodes(s.target) + nodes(s.arg);
    case 'make':
      return 1 + (s.seed ? nodes(s.seed) : 0);
    case 'refuse':
      return 1 + nodes(s.reading);
    case 'pass':
      return 1;
  }
}

function compileStmt(s: S): Ex {
  const c = cost(s);
  switch (s.k) {
    case 'pass':
      return (_, rt) => {
        if ((rt.left -= c) < 0) throw outOfTicks;
        return undefined;
      };
    case 'set': {
      const slot = s.slot;
      const e = compileExpr(s.e);
      return (env, rt) => {
        if ((rt.left -= c) < 0) throw outOfTicks;
        env[slot] = e(env, rt);
        return undefined;
      };
    }
    case 'setPath': {
      const slot = s.slot;
      const path = s.path;
      const e = compileExpr(s.e);
      return (env, rt) => {
        if ((rt.left -= c) < 0) throw outOfTicks;
        const v = e(env, rt);
        env[slot] = setIn(env[slot] as Value[], path, 0, v, rt);
        return undefined;
      };
    }
    case 'if': {
      const conds = s.branches.map(([cond]) => compileExpr(cond));
      const bodies = s.branches.map(([, b]) => compileBlock(b));
      const costs = s.branches.map(([cond]) => 1 + nodes(cond));
      const other = s.otherwise ? compileBlock(s.otherwise) : undefined;
      if (conds.length === 1) {
        const cond = conds[0]!;
        const body = bodies[0]!;
        return (env, rt) => {
          if ((rt.left -= c) < 0) throw outOfTicks;
          if (cond(env, rt)) return body(env, rt);
          return other ? other(env, rt) : undefined;
        };
      }
      return (env, rt) => {
        for (let i = 0; i < conds.length; i++) {
          if ((rt.left -= costs[i]!) < 0) throw outOfTicks;
          if (conds[i]!(env, rt)) return bodies[i]!(env, rt);
        }
        return other ? other(env, rt) : undefined;
      };
    }
    case 'match': {
      const subject = compileExpr(s.subject);
      const cases = s.cases.map((k) => (k ? { binds: k.binds, body: compileBlock(k.body) } : undefined));
      const rest = s.rest ? compileBlock(s.rest) : undefined;
      return (env, rt) => {
        if ((rt.left -= c) < 0) throw outOfTicks;
        const v = subject(env, rt) as Tagged;
        const k = cases[v.t];
        if (!k) return rest ? rest(env, rt) : undefined;
        for (const [from, to] of k.binds) env[to] = v.f![from]!;
        return k.body(env, rt);
      };
    }
    case 'forList': {
      const slot = s.slot;
      const list = compileExpr(s.list);
      const body = compileBlock(s.body);
      return (env, rt) => {
        if ((rt.left -= c) < 0) throw outOfTicks;
        const xs = list(env, rt) as Value[];
        for (let i = 0; i < xs.length; i++) {
          if (--rt.left < 0) throw outOfTicks;
          env[slot] = xs[i]!;
          const r = body(env, rt);
          if (r !== undefined) return r;
        }
        return undefined;
      };
    }
    case 'forRange': {
      const slot = s.slot;
      const from = compileExpr(s.from);
      const to = compileExpr(s.to);
      const body = compileBlock(s.body);
      return (env, rt) => {
        if ((rt.left -= c) < 0) throw outOfTicks;
        const a = from(env, rt);
        const b = to(env, rt);
        if (typeof a === 'number' && typeof b === 'number') {
          for (let i = a; i <= b; i++) {
            if (--rt.left < 0) throw outOfTicks;
            env[slot] = i;
            const r = body(env, rt);
            if (r !== undefined) return r;
          }
          return undefined;
        }
        // Past 2^53 the counter is a bigint; the tick budget ends any long run of it.
        for (let i = BigInt(a as number); i <= BigInt(b as number); i++) {
          if (--rt.left < 0) throw outOfTicks;
          env[slot] = norm(i);
          const r = body(env, rt);
          if (r !== undefined) return r;
        }
        return undefined;
      };
    }
    case 'while': {
      const cond = compileExpr(s.cond);
      const cc = 1 + nodes(s.cond);
      const body = compileBlock(s.body);
      return (env, rt) => {
        while (true) {
          if ((rt.left -= cc) < 0) throw outOfTicks;
          if (!cond(env, rt)) return undefined;
          const r = body(env, rt);
          if (r !== undefined) return r;
        }
      };
    }
    case 'return': {
      const e = compileExpr(s.e);
      return (env, rt) => {
        if ((rt.left -= c) < 0) throw outOfTicks;
        return e(env, rt);
      };
    }
    case 'say': {
      const e = compileExpr(s.e);
      return (env, rt) => {
        if ((rt.left -= c) < 0) throw outOfTicks;
        rt.says.push(e(env, rt) as string);
        return undefined;
      };
    }
    case 'result': {
      const e = compileExpr(s.e);
      const ty = s.ty;
      return (env, rt) => {
        if ((rt.left -= c) < 0) throw outOfTicks;
        rt.result = toTyped(ty, e(env, rt));
        return undefined;
      };
    }
    case 'send': {
      const target = compileExpr(s.target);
      const arg = compileExpr(s.arg);
      const method = s.method;
      const ty: Ty = s.argTy;
      return (env, rt) => {
        if ((rt.left -= c) < 0) throw outOfTicks;
        const to = target(env, rt) as string;
        const a = arg(env, rt);
        rt.sends.push({ to, method, argument: toTyped(ty, a) });
        return undefined;
      };
    }
    case 'make': {
      const seed = s.seed ? compileExpr(s.seed) : undefined;
      const ty = s.seedTy;
      const kind = s.kind;
      return (env, rt) => {
        if ((rt.left -= c) < 0) throw outOfTicks;
        if (seed && ty) rt.makes.push({ kind, seed: toTyped(ty, seed(env, rt)) });
        else rt.makes.push({ kind });
        return undefined;
      };
    }
    case 'refuse': {
      const reading = compileExpr(s.reading);
      const clause = s.clause;
      const cls = s.cls;
      return (env, rt) => {
        if ((rt.left -= c) < 0) throw outOfTicks;
        const r = reading(env, rt) as string;
        throw new Halt(cls ? { class: cls, reason: r } : { class: 'cardRefused', clause, reading: r });
      };
    }
  }
}

/** Compiles a function's body into `exec` (once). */
export function compileFn(fn: FnSym): void {
  if (fn.exec || !fn.body) return;
  const body = compileBlock(fn.body);
  fn.weight = callWeight(fn);
  const name = fn.name;
  fn.exec = (env, rt) => {
    const r = body(env, rt);
    if (r === undefined) evaluation(`${name} ended without returning`);
    return r;
  };
}

/** A law clause, want or rule as a function of (self, before). */
export function compileClause(c: CheckedClause): { pred: Ev; say?: Ev; slots: number } {
  const out: { pred: Ev; say?: Ev; slots: number } = { pred: compileExpr(c.pred), slots: c.slots };
  if (c.say) out.say = compileExpr(c.say);
  return out;
}

export const clauseCost = (c: CheckedClause): number => 1 + nodes(c.pred) + (c.say ? nodes(c.say) : 0);
