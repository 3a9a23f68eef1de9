/**
 * Which route of the table answers a request: the first layer of the @koa/router router whose
 * path and method match, as `router.match` finds it — but without testing every route's regular
 * expression on every request. A route's first two path segments are literal text (or a
 * parameter in the second place), so only the routes under the request's own first two segments
 * can match it; those are tested, with the router's own layers, in the table's order.
 */
import type { Layer, Router } from '@koa/router';

export interface RouteMatch<L> {
  /** The first layer that takes this path and method. */
  layer?: L;
  /** When none does: every layer that takes this path under some method (for 405 and Allow). */
  onPath: readonly L[];
}

/** Text that path-to-regexp reads as itself, not as a parameter, wildcard or group. */
const literal = (segment: string) => !/[:*?+(){}\\]/.test(segment);

/** The routes under one first segment. */
interface Under<L> {
  /** Second segment → the routes that may match such paths, in the table's order. */
  bySecond: Map<string, L[]>;
  /** The routes with a parameter as second segment (they match any second one). */
  wild: L[];
}

const ascii = /^[\x00-\x7f]*$/;
const none: readonly never[] = Object.freeze([]);

export class RouteIndex<L extends Pick<Layer, 'match' | 'methods' | 'path'>> {
  /** First segment, as the table writes it and in lower case → the routes under it. */
  private readonly byFirst = new Map<string, Under<L>>();
  /** False when some route is not literal in its first segment: then every layer is tested. */
  private readonly indexed: boolean;

  constructor(private readonly layers: readonly L[]) {
    const shapes = layers.map((l) => (typeof l.path === 'string' && l.path.startsWith('/') ? l.path.split('/') : undefined));
    this.indexed = shapes.every((s) => s !== undefined && literal(s[1]) && ascii.test(s[1]) && (s.length < 3 || ascii.test(s[2])));
    if (!this.indexed) return;
    const firsts = [...new Set((shapes as string[][]).map((s) => s[1].toLowerCase()))];
    for (const first of firsts) {
      const mine = (s: string[]) => s[1].toLowerCase() === first;
      const under: Under<L> = { bySecond: new Map(), wild: layers.filter((_, i) => mine(shapes[i]!) && shapes[i]!.length >= 3 && !literal(shapes[i]![2])) };
      for (const s of shapes as string[][]) {
        if (!mine(s) || (s.length >= 3 && !literal(s[2]))) continue;
        const second = s[2] ?? '';
        // `/a` also matches `/a/` (no strict trailing slash), which has '' as second segment.
        const some = layers.filter((_, i) => {
          const t = shapes[i]!;
          return mine(t) && (t.length < 3 || !literal(t[2]) || t[2].toLowerCase() === second.toLowerCase());
        });
        under.bySecond.set(second, some);
        under.bySecond.set(second.toLowerCase(), some);
      }
      for (const s of shapes as string[][]) if (mine(s)) this.byFirst.set(s[1], under);
      this.byFirst.set(first, under);
    }
  }

  static of<S, C>(router: Router<S, C>): RouteIndex<Layer<S, C>> {
    return new RouteIndex(router.stack);
  }

  match(path: string, method: string): RouteMatch<L> {
    const candidates = this.candidates(path);
    for (const l of candidates) {
      if (l.methods.length > 0 && l.methods.includes(method) && l.match(path)) return { layer: l, onPath: none };
    }
    return { onPath: candidates.filter((l) => l.methods.length > 0 && l.match(path)) };
  }

  /**
   * The routes that may match `path`: those under its first two segments, looked up as written
   * (the usual case) or in lower case (the router matches without regard to case).
   */
  private candidates(path: string): readonly L[] {
    if (!this.indexed || path.charCodeAt(0) !== 47) return this.layers;
    const i = path.indexOf('/', 1);
    const first = i < 0 ? path.slice(1) : path.slice(1, i);
    const j = i < 0 ? -1 : path.indexOf('/', i + 1);
    const second = i < 0 ? '' : j < 0 ? path.slice(i + 1) : path.slice(i + 1, j);
    // Unicode case folding may match text whose lower case differs: then test every route.
    const under = this.byFirst.get(first) ?? (ascii.test(first) ? this.byFirst.get(first.toLowerCase()) : undefined);
    // No route starts so: the whole table is tested (a 404 is not the path to make fast).
    if (!under) return this.layers;
    const some = under.bySecond.get(second) ?? (ascii.test(second) ? under.bySecond.get(second.toLowerCase()) : undefined);
    if (some) return some;
    return ascii.test(second) ? under.wild : this.layers;
  }
}
