/**
 * Checked expressions to closures `(env, rt) => value`. Each closure does its node's work and
 * charges heap for what it allocates; ticks are charged by the statement around it (cost.ts).
 */
import { shownPrincipal } from '../../program.js';
import type { E, FnSym, Link } from '../ir.js';
import { type Rt, maxCallDepth, tooDeep } from '../meter.js';
import { Halt, Slice, Tagged, add, cmpText, display, div, eq, items, limbs, mod, mul, sub, type Value } from '../values.js';

export type Ev = (env: Value[], rt: Rt) => Value;

const MAX = Number.MAX_SAFE_INTEGER;

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

export function evaluation(reason: string): never {
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
        case 'place':
          return (_, rt) => rt.ctx!.place ?? '';
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
        const v = o(env, rt);
        const k = i(env, rt);
        // a grown list is read in its buffer, up to its own length
        let xs: Value[];
        let n: number;
        if (v instanceof Slice) {
          xs = v.buf;
          n = v.len;
        } else {
          xs = v as Value[];
          n = xs.length;
        }
        if (typeof k !== 'number' || k >= n) evaluation(`index ${k} is past the end of a list of ${n}`);
        return xs[k]!;
      };
    }
    case 'call':
      return compileCall(e.fn, e.args.map(compileExpr));
    case 'builtin': {
      const b = e.b;
      const tys = e.tys;
      // list arguments reach a built-in as arrays (a grown list's items), unless it reads them itself
      const args = e.args.map((a, i) => {
        const ev = compileExpr(a);
        if (b.rawLists || tys[i]?.k !== 'list') return ev;
        return ((env, rt) => items(ev(env, rt))) as Ev;
      });
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
          const a = items(l(env, rt));
          const b = items(r(env, rt));
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
      if (e.text) {
        const op = e.op;
        return (env, rt) => {
          const a = l(env, rt) as string;
          const b = r(env, rt) as string;
          rt.tick(Math.min(a.length, b.length) >> 4);
          const c = cmpText(a, b);
          return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
        };
      }
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
    case 'chain':
      return compileChain(e);
  }
  throw new Error(`compiler: unknown node ${(e as E).k}`);
}

/** One link's work on the value so far and its right operand, as the nested node would do it. */
function step(op: Link['op'], a: Value, b: Value, rt: Rt): Value {
  switch (op) {
    case '+':
      if (typeof a === 'number' && typeof b === 'number' && a + b <= MAX) return a + b;
      bigWork(rt, a, b, '+');
      return add(a, b);
    case '-':
      if (typeof a === 'number' && typeof b === 'number' && b <= a) return a - b;
      bigWork(rt, a, b, '-');
      return sub(a, b);
    case '*':
      if (typeof a === 'number' && typeof b === 'number' && a * b <= MAX) return a * b;
      bigWork(rt, a, b, '*');
      return mul(a, b);
    case '/':
      if (typeof a !== 'number' || typeof b !== 'number') bigWork(rt, a, b, '/');
      return div(a, b);
    case '%':
      if (typeof a !== 'number' || typeof b !== 'number') bigWork(rt, a, b, '%');
      return mod(a, b);
    case 'list': {
      const x = items(a);
      const y = items(b);
      rt.alloc(16 + 8 * (x.length + y.length));
      return x.concat(y);
    }
    default: {
      const s = (a as string) + (b as string);
      rt.alloc(8 + s.length);
      return s;
    }
  }
}

/** A long left-assoc chain as a loop: the same order, short-circuits, costs and refusals as the nested form, in constant stack. */
function compileChain(e: Extract<E, { k: 'chain' }>): Ev {
  const first = compileExpr(e.first);
  const ops = e.links.map((l) => l.op);
  const rs = e.links.map((l) => compileExpr(l.r));
  const n = ops.length;
  return (env, rt) => {
    let v = first(env, rt);
    for (let i = 0; i < n; i++) {
      const op = ops[i]!;
      if (op === 'and') v = (v as boolean) && (rs[i]!(env, rt) as boolean);
      else if (op === 'or') v = (v as boolean) || (rs[i]!(env, rt) as boolean);
      else v = step(op, v, rs[i]!(env, rt), rt);
    }
    return v;
  };
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
