/**
 * Checked statements to closures `(env, rt) => value | undefined`: undefined to go on, the
 * value when the statement returns. Each statement's closure first subtracts its cost in
 * ticks (cost.ts), so metering is one subtraction per statement, not one per node.
 */
import { toTyped } from '../boundary.js';
import type { S } from '../ir.js';
import { type Rt, outOfTicks } from '../meter.js';
import type { Ty } from '../types.js';
import { Halt, Slice, Tagged, norm, type Value } from '../values.js';
import { nodes, stmtCost } from './cost.js';
import { compileExpr } from './expressions.js';

/** Runs a statement: undefined to go on, or the value returned (or BREAK / CONTINUE, to the loop around it). */
export type Ex = (env: Value[], rt: Rt) => Value | undefined;

/** What `break` and `continue` hand up to their loop: objects no card value can be. */
const BREAK = new Tagged(-1, null);
const CONTINUE = new Tagged(-2, null);

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

function compileStmt(s: S): Ex {
  const c = stmtCost(s);
  switch (s.k) {
    case 'pass':
      return (_, rt) => {
        if ((rt.left -= c) < 0) throw outOfTicks;
        return undefined;
      };
    case 'break':
    case 'continue': {
      const signal = s.k === 'break' ? BREAK : CONTINUE;
      return (_, rt) => {
        if ((rt.left -= c) < 0) throw outOfTicks;
        return signal;
      };
    }
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
        const v = list(env, rt);
        // a grown list is walked in its buffer up to its own length (the body may append to it)
        let xs: Value[];
        let n: number;
        if (v instanceof Slice) {
          xs = v.buf;
          n = v.len;
        } else {
          xs = v as Value[];
          n = xs.length;
        }
        for (let i = 0; i < n; i++) {
          if (--rt.left < 0) throw outOfTicks;
          env[slot] = xs[i]!;
          const r = body(env, rt);
          if (r !== undefined) {
            if (r === BREAK) break;
            if (r !== CONTINUE) return r;
          }
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
            if (r !== undefined) {
              if (r === BREAK) break;
              if (r !== CONTINUE) return r;
            }
          }
          return undefined;
        }
        // Past 2^53 the counter is a bigint; the tick budget ends any long run of it.
        for (let i = BigInt(a as number); i <= BigInt(b as number); i++) {
          if (--rt.left < 0) throw outOfTicks;
          env[slot] = norm(i);
          const r = body(env, rt);
          if (r !== undefined) {
            if (r === BREAK) break;
            if (r !== CONTINUE) return r;
          }
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
          if (r !== undefined) {
            if (r === BREAK) return undefined;
            if (r !== CONTINUE) return r;
          }
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
    case 'move': {
      const thing = compileExpr(s.thing);
      const to = compileExpr(s.to);
      return (env, rt) => {
        if ((rt.left -= c) < 0) throw outOfTicks;
        rt.moves.push({ thing: thing(env, rt) as string, to: to(env, rt) as string });
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
