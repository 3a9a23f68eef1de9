/** Type expressions: `Natural`, `Natural 0..9`, `List Text`, `Map Text Natural`, `core.Pair`. */
import type { TypeExpr } from '../ast.js';
import { join, type Span } from '../diagnostics.js';
import type { Cursor } from './cursor.js';

export function typeExpr(p: Cursor): TypeExpr {
  p.enter(p.peek());
  try {
    const t = p.peek();
    if (t.k !== 'name')
      p.fail(t, `expected a type, but found ${p.describe(t)}`, 'Natural, Text, Boolean, Object, Principal, List Natural, or a type you declared');
    p.next();
    if (t.v === 'List') {
      const of = typeExpr(p);
      return { k: 'tlist', of, span: join(t, of.span) };
    }
    if (t.v === 'Map') {
      const key = typeExpr(p);
      const of = typeExpr(p);
      return { k: 'tmap', key, of, span: join(t, of.span) };
    }
    let name = t.v;
    let qual: string | undefined;
    let end: Span = t;
    if (p.isOp('.') && p.peek(1).k === 'name') {
      p.next();
      const n2 = p.next();
      qual = name;
      name = n2.v;
      end = n2;
    }
    const ty: TypeExpr = { k: 'tname', name, span: join(t, end) };
    if (qual !== undefined) ty.qual = qual;
    if (p.is('nat')) {
      const lo = p.next();
      p.expectOp('..', `between the bounds of ${name}`, `${name} ${lo.v}..80`);
      const hi = p.peek();
      if (hi.k !== 'nat') p.fail(hi, `expected the upper bound of ${name}, but found ${p.describe(hi)}`, `${name} ${lo.v}..80`);
      p.next();
      ty.min = BigInt(lo.v);
      ty.max = BigInt(hi.v);
      ty.span = join(t, hi);
    }
    return ty;
  } finally {
    p.leave();
  }
}
