/**
 * Built-in functions: always in scope, polymorphic where a card needs them to be (lists of
 * anything), each typed by its own rule and metered by the work it does.
 */
import type { Rt } from './meter.js';
import { textLength } from './boundary.js';
import { BOOL, ERR, NAT, TEXT, compat, listOf, show, type Ty } from './types.js';
import { type Key, PMap, mapGet, mapHas, mapKeys, mapPut, mapRemove, mapValues } from './pmap.js';
import { Halt, Slice, cmpText, count, display, eq, items, lt, norm, type Value } from './values.js';

export interface Builtin {
  name: string;
  arity: number;
  /** How a guest calls it, for hints. */
  sig: string;
  doc: string;
  /** The result type, or a complaint about argument `i`. */
  type(args: Ty[]): Ty | { arg: number; message: string };
  run(args: Value[], rt: Rt, tys: Ty[]): Value;
  /** Its first argument may be a map, whose key and value types the next two arguments take. */
  mapArgs?: boolean;
  /** Takes its list arguments as they are (a grown list as a Slice), not as arrays. */
  rawLists?: boolean;
}

const want = (arg: number, message: string): { arg: number; message: string } => ({ arg, message });
const isList = (t: Ty): t is { k: 'list'; of: Ty } => t.k === 'list';
const err = (t: Ty): boolean => t.k === 'err';

function textArg(rt: Rt, s: string): void {
  rt.tick(1 + (s.length >> 4));
}
function newText(rt: Rt, s: string): string {
  rt.alloc(8 + s.length);
  return s;
}
function newList(rt: Rt, xs: Value[]): Value[] {
  rt.alloc(16 + 8 * xs.length);
  return xs;
}
function evaluation(reason: string): never {
  throw new Halt({ class: 'evaluation', reason });
}

function listOrText(name: string, i: number, t: Ty): Ty | { arg: number; message: string } {
  if (err(t) || isList(t) || t.k === 'text') return t.k === 'text' ? TEXT : t;
  if (name === 'length' && t.k === 'map') return t;
  return want(i, `${name} takes a list or a text, not ${show(t)}`);
}

function elementOf(name: string, lt0: Ty, x: Ty): Ty | { arg: number; message: string } {
  if (err(lt0)) return ERR;
  if (!isList(lt0)) return want(0, `${name} takes a list first, not ${show(lt0)}`);
  if (!compat(lt0.of, x) && !compat(x, lt0.of)) return want(1, `the list holds ${show(lt0.of)}, but this is ${show(x)}`);
  return lt0;
}

/** A key of the map `m` (a natural or a text); `r` is the result type when it fits. */
function keyOf(name: string, m: Ty, k: Ty, r: Ty): Ty | { arg: number; message: string } {
  if (err(m)) return r;
  if (m.k !== 'map') return want(0, `${name} takes a map first, not ${show(m)}`);
  if (!compat(m.key, k) && !compat(k, m.key)) return want(1, `the map is keyed by ${show(m.key)}, but this is ${show(k)}`);
  return r;
}

/** Ticks of one map operation: one, and one per key compared on the path it walks (log n), a text key one more per 16 characters. */
function walk(m: PMap<Value>, k: Value): number {
  return 1 + m.depth * (typeof k === 'string' ? 1 + (k.length >> 4) : 1);
}

/** Heap of a put: the one entry the map keeps (the copied path replaces the old map's, garbage bounded by the ticks). */
const mapEntryHeap = 32;

const mapBuiltins: Builtin[] = [
  {
    name: 'get',
    arity: 2,
    sig: 'get(map, key) -> value',
    doc: 'the value at the key; refuses absentItem when the key is not there',
    mapArgs: true,
    type: ([m, k]) => keyOf('get', m!, k!, m!.k === 'map' ? m!.of : ERR),
    run: ([m, k], rt, tys) => {
      const map = m as PMap<Value>;
      rt.tick(walk(map, k!));
      const v = mapGet(map, k as Key);
      if (v === undefined) throw new Halt({ class: 'absentItem', reason: `${display(k!, (tys[0] as { key: Ty }).key, true)} is not a key of the map` });
      return v;
    },
  },
  {
    name: 'has',
    arity: 2,
    sig: 'has(map, key) -> Boolean',
    doc: 'whether the map holds the key',
    mapArgs: true,
    type: ([m, k]) => keyOf('has', m!, k!, BOOL),
    run: ([m, k], rt) => {
      rt.tick(walk(m as PMap<Value>, k!));
      return mapHas(m as PMap<Value>, k as Key);
    },
  },
  {
    name: 'put',
    arity: 3,
    sig: 'put(map, key, value) -> map',
    doc: 'a new map with the key set to the value (added, or replacing what it held)',
    mapArgs: true,
    type: ([m, k, v]) => {
      const r = keyOf('put', m!, k!, m!);
      if ('arg' in r || m!.k !== 'map') return r;
      if (!compat(m!.of, v!)) return want(2, `the map holds ${show(m!.of)}, but this is ${show(v!)}`);
      return r;
    },
    run: ([m, k, v], rt) => {
      const map = m as PMap<Value>;
      rt.tick(walk(map, k!));
      rt.alloc(mapEntryHeap);
      return mapPut(map, k as Key, v!);
    },
  },
  {
    name: 'keys',
    arity: 1,
    sig: 'keys(map) -> List key',
    doc: 'the keys in ascending order (naturals by size, texts by code point)',
    type: ([m]) => (err(m!) ? ERR : m!.k === 'map' ? listOf(m!.key) : want(0, `keys takes a map, not ${show(m!)}`)),
    run: ([m], rt) => {
      const map = m as PMap<Value>;
      rt.tick(1 + map.size);
      return newList(rt, mapKeys(map));
    },
  },
  {
    name: 'values',
    arity: 1,
    sig: 'values(map) -> List value',
    doc: 'the values, in the order of their keys',
    type: ([m]) => (err(m!) ? ERR : m!.k === 'map' ? listOf(m!.of) : want(0, `values takes a map, not ${show(m!)}`)),
    run: ([m], rt) => {
      const map = m as PMap<Value>;
      rt.tick(1 + map.size);
      return newList(rt, mapValues(map));
    },
  },
  {
    name: 'size',
    arity: 1,
    sig: 'size(map) -> Natural',
    doc: 'how many keys the map holds',
    type: ([m]) => (err(m!) ? ERR : m!.k === 'map' ? NAT : want(0, `size takes a map, not ${show(m!)}`)),
    run: ([m]) => (m as PMap<Value>).size,
  },
];

function twoTexts(name: string, t: Ty, p: Ty, r: Ty): Ty | { arg: number; message: string } {
  if (t.k !== 'text' && !err(t)) return want(0, `${name} takes a text, not ${show(t)}`);
  if (p.k !== 'text' && !err(p)) return want(1, `${name} looks for a text, not ${show(p)}`);
  return r;
}

const builtinList: Builtin[] = [
  ...mapBuiltins,
  {
    name: 'length',
    arity: 1,
    sig: 'length(list, text or map) -> Natural',
    doc: 'how many items a list holds, or characters a text has',
    type: ([t]) => {
      const r = listOrText('length', 0, t!);
      return 'arg' in r ? r : NAT;
    },
    rawLists: true,
    run: ([x]) => (typeof x === 'string' ? textLength(x) : x instanceof PMap ? x.size : count(x!)),
  },
  {
    name: 'append',
    arity: 2,
    sig: 'append(list, item) -> list',
    doc: 'a new list with the item added at the end',
    type: ([l, x]) => elementOf('append', l!, x!),
    rawLists: true,
    run: ([l, x], rt) => {
      // the newest list of its buffer grows in place: one slot, however long the list
      if (l instanceof Slice && l.len === l.buf.length) {
        rt.tick(1);
        rt.alloc(24);
        l.buf.push(x!);
        return new Slice(l.buf, l.len + 1);
      }
      // a list from elsewhere (or an older list of a buffer) is copied once into a buffer of its own
      const xs = items(l!);
      rt.tick(1 + (xs.length >> 3));
      const buf = xs.slice();
      buf.push(x!);
      rt.alloc(16 + 8 * buf.length);
      return new Slice(buf, buf.length);
    },
  },
  {
    name: 'contains',
    arity: 2,
    sig: 'contains(list, item) or contains(text, part) -> Boolean',
    doc: 'whether the list holds the item, or the text holds the part',
    type: ([l, x]) => {
      if (l!.k === 'text') return x!.k === 'text' || err(x!) ? BOOL : want(1, `contains on a text looks for a text, not ${show(x!)}`);
      const r = elementOf('contains', l!, x!);
      return 'arg' in r ? r : BOOL;
    },
    run: ([l, x], rt) => {
      if (typeof l === 'string') {
        textArg(rt, l);
        return l.includes(x as string);
      }
      const c = rt.count;
      c.n = 0;
      let found = false;
      for (const y of l as Value[]) {
        if (eq(y, x!, c)) {
          found = true;
          break;
        }
      }
      rt.tick(c.n);
      return found;
    },
  },
  {
    name: 'remove',
    arity: 2,
    sig: 'remove(list, item) -> list, or remove(map, key) -> map',
    doc: 'a new list without the first such item, or a new map without the key; refuses absentItem when it is not there',
    mapArgs: true,
    type: ([l, x]) => (l!.k === 'map' ? keyOf('remove', l!, x!, l!) : elementOf('remove', l!, x!)),
    run: ([l, x], rt, tys) => {
      if (l instanceof PMap) {
        rt.tick(walk(l, x!));
        if (!mapHas(l, x as Key)) throw new Halt({ class: 'absentItem', reason: `${display(x!, (tys[0] as { key: Ty }).key, true)} is not a key of the map` });
        return mapRemove(l, x as Key);
      }
      const xs = l as Value[];
      const c = rt.count;
      c.n = 0;
      const i = xs.findIndex((y) => eq(y, x!, c));
      rt.tick(c.n);
      if (i < 0) throw new Halt({ class: 'absentItem', reason: `${display(x!, (tys[0] as { of: Ty }).of, true)} is not in the list` });
      return newList(rt, [...xs.slice(0, i), ...xs.slice(i + 1)]);
    },
  },
  {
    name: 'without',
    arity: 2,
    sig: 'without(list, item) -> list',
    doc: 'a new list with every such item left out (no refusal when there is none)',
    type: ([l, x]) => elementOf('without', l!, x!),
    run: ([l, x], rt) => {
      const c = rt.count;
      c.n = 0;
      const out = (l as Value[]).filter((y) => !eq(y, x!, c));
      rt.tick(c.n);
      return newList(rt, out);
    },
  },
  {
    name: 'first',
    arity: 1,
    sig: 'first(list) -> item',
    doc: 'the first item; an empty list cannot answer',
    type: ([l]) => (err(l!) ? ERR : isList(l!) ? l.of : want(0, `first takes a list, not ${show(l!)}`)),
    run: ([l]) => {
      const xs = l as Value[];
      if (!xs.length) evaluation('first of an empty list');
      return xs[0]!;
    },
  },
  {
    name: 'last',
    arity: 1,
    sig: 'last(list) -> item',
    doc: 'the last item; an empty list cannot answer',
    type: ([l]) => (err(l!) ? ERR : isList(l!) ? l.of : want(0, `last takes a list, not ${show(l!)}`)),
    run: ([l]) => {
      const xs = l as Value[];
      if (!xs.length) evaluation('last of an empty list');
      return xs[xs.length - 1]!;
    },
  },
  {
    name: 'rest',
    arity: 1,
    sig: 'rest(list) -> list',
    doc: 'the list without its first item (empty stays empty)',
    type: ([l]) => (err(l!) || isList(l!) ? l! : want(0, `rest takes a list, not ${show(l!)}`)),
    run: ([l], rt) => newList(rt, (l as Value[]).slice(1)),
  },
  {
    name: 'slice',
    arity: 3,
    sig: 'slice(list or text, from, to) -> the same kind',
    doc: 'the items (or characters) from position `from` up to but not including `to`',
    type: ([l, a, b]) => {
      const r = listOrText('slice', 0, l!);
      if ('arg' in r) return r;
      if (!compat(NAT, a!)) return want(1, `slice positions are naturals, not ${show(a!)}`);
      if (!compat(NAT, b!)) return want(2, `slice positions are naturals, not ${show(b!)}`);
      return r;
    },
    run: ([l, a, b], rt) => {
      const from = typeof a === 'number' ? a : Number.MAX_SAFE_INTEGER;
      const to = typeof b === 'number' ? b : Number.MAX_SAFE_INTEGER;
      if (typeof l === 'string') {
        const cps = Array.from(l);
        rt.tick(1 + (cps.length >> 4));
        return newText(rt, cps.slice(from, Math.max(from, to)).join(''));
      }
      return newList(rt, (l as Value[]).slice(from, Math.max(from, to)));
    },
  },
  {
    name: 'reverse',
    arity: 1,
    sig: 'reverse(list) -> list',
    doc: 'the list back to front',
    type: ([l]) => (err(l!) || isList(l!) ? l! : want(0, `reverse takes a list, not ${show(l!)}`)),
    run: ([l], rt) => {
      rt.tick(1 + ((l as Value[]).length >> 3));
      return newList(rt, (l as Value[]).slice().reverse());
    },
  },
  {
    name: 'sort',
    arity: 1,
    sig: 'sort(list of naturals or texts) -> list',
    doc: 'the list in ascending order (texts by code point)',
    type: ([l]) => {
      if (err(l!)) return ERR;
      if (isList(l!) && (l.of.k === 'nat' || l.of.k === 'text' || err(l.of))) return l;
      return want(0, `sort takes a list of naturals or texts, not ${show(l!)}`);
    },
    run: ([l], rt, tys) => {
      const xs = (l as Value[]).slice();
      rt.tick(1 + xs.length * Math.ceil(Math.log2(xs.length + 1)));
      if ((tys[0] as { of: Ty }).of.k === 'text') xs.sort((a, b) => cmpText(a as string, b as string));
      else xs.sort((a, b) => (lt(a, b) ? -1 : lt(b, a) ? 1 : 0));
      return newList(rt, xs);
    },
  },
  {
    name: 'text',
    arity: 1,
    sig: 'text(value) -> Text',
    doc: 'the value as it reads inside text',
    type: () => TEXT,
    run: ([x], rt, tys) => newText(rt, display(x!, tys[0]!)),
  },
  {
    name: 'words',
    arity: 1,
    sig: 'words(text) -> List Text',
    doc: 'the words of a text, split at spaces and line breaks',
    type: ([t]) => (t!.k === 'text' || err(t!) ? listOf(TEXT) : want(0, `words takes a text, not ${show(t!)}`)),
    run: ([t], rt) => {
      textArg(rt, t as string);
      const ws = (t as string).split(/\s+/).filter((w) => w.length > 0);
      rt.alloc((t as string).length);
      return newList(rt, ws);
    },
  },
  {
    name: 'join',
    arity: 2,
    sig: 'join(list of texts, separator) -> Text',
    doc: 'the texts one after another, with the separator between',
    type: ([l, s]) => {
      if (!err(l!) && !(isList(l!) && (l.of.k === 'text' || err(l.of)))) return want(0, `join takes a list of texts, not ${show(l!)}`);
      if (s!.k !== 'text' && !err(s!)) return want(1, `the separator is a text, not ${show(s!)}`);
      return TEXT;
    },
    run: ([l, s], rt) => {
      const out = (l as string[]).join(s as string);
      rt.tick(1 + (out.length >> 4));
      return newText(rt, out);
    },
  },
  ...(['lower', 'upper', 'trim'] as const).map(
    (name): Builtin => ({
      name,
      arity: 1,
      sig: `${name}(text) -> Text`,
      doc: name === 'trim' ? 'the text without spaces at either end' : `the text in ${name} case`,
      type: ([t]) => (t!.k === 'text' || err(t!) ? TEXT : want(0, `${name} takes a text, not ${show(t!)}`)),
      run: ([t], rt) => {
        textArg(rt, t as string);
        const s = t as string;
        return newText(rt, name === 'lower' ? s.toLowerCase() : name === 'upper' ? s.toUpperCase() : s.trim());
      },
    }),
  ),
  ...(['startsWith', 'endsWith'] as const).map(
    (name): Builtin => ({
      name,
      arity: 2,
      sig: `${name}(text, part) -> Boolean`,
      doc: `whether the text ${name === 'startsWith' ? 'begins' : 'ends'} with the part`,
      type: ([t, p]) => {
        if (t!.k !== 'text' && !err(t!)) return want(0, `${name} takes a text, not ${show(t!)}`);
        if (p!.k !== 'text' && !err(p!)) return want(1, `${name} looks for a text, not ${show(p!)}`);
        return BOOL;
      },
      run: ([t, p], rt) => {
        textArg(rt, p as string);
        return name === 'startsWith' ? (t as string).startsWith(p as string) : (t as string).endsWith(p as string);
      },
    }),
  ),
  {
    name: 'find',
    arity: 2,
    sig: 'find(text, part) -> Natural',
    doc: 'where the part first stands in the text, counted in characters from 0; refuses absentItem when it is not there (ask contains first)',
    type: ([t, p]) => twoTexts('find', t!, p!, NAT),
    run: ([t, p], rt) => {
      const s = t as string;
      textArg(rt, s);
      const at = s.indexOf(p as string);
      if (at < 0) throw new Halt({ class: 'absentItem', reason: `${JSON.stringify((p as string).slice(0, 40))} is not in the text` });
      return textLength(s.slice(0, at));
    },
  },
  {
    name: 'replace',
    arity: 3,
    sig: 'replace(text, part, with) -> Text',
    doc: 'the text with every occurrence of the part replaced (the part may not be empty)',
    type: ([t, p, w]) => {
      const r = twoTexts('replace', t!, p!, TEXT);
      if ('arg' in r) return r;
      return w!.k === 'text' || err(w!) ? TEXT : want(2, `replace puts in a text, not ${show(w!)}`);
    },
    run: ([t, p, w], rt) => {
      if (p === '') evaluation('replace needs a part to look for, not empty text');
      const s = t as string;
      textArg(rt, s);
      // the size of the result is known before it is built: count, charge, then build
      let n = 0;
      for (let at = s.indexOf(p as string); at >= 0; at = s.indexOf(p as string, at + (p as string).length)) n++;
      const size = s.length + n * ((w as string).length - (p as string).length);
      rt.tick(size >> 4);
      rt.alloc(8 + size);
      return s.split(p as string).join(w as string);
    },
  },
  {
    name: 'split',
    arity: 2,
    sig: 'split(text, separator) -> List Text',
    doc: 'the pieces of the text between separators (an empty separator splits it into characters)',
    type: ([t, p]) => twoTexts('split', t!, p!, listOf(TEXT)),
    run: ([t, p], rt) => {
      const s = t as string;
      textArg(rt, s);
      const parts = p === '' ? Array.from(s) : s.split(p as string);
      rt.tick(parts.length >> 3);
      rt.alloc(s.length + 8 * parts.length);
      return newList(rt, parts);
    },
  },
  {
    name: 'code',
    arity: 1,
    sig: 'code(text) -> Natural',
    doc: 'the code point of the first character (code("A") is 65); empty text has none',
    type: ([t]) => (t!.k === 'text' || err(t!) ? NAT : want(0, `code takes a text, not ${show(t!)}`)),
    run: ([t]) => {
      const c = (t as string).codePointAt(0);
      if (c === undefined) evaluation('code of empty text');
      return c;
    },
  },
  {
    name: 'char',
    arity: 1,
    sig: 'char(natural) -> Text',
    doc: 'the character with that code point (char(65) is "A")',
    type: ([n]) => (n!.k === 'nat' || err(n!) ? TEXT : want(0, `char takes a natural, not ${show(n!)}`)),
    run: ([n], rt) => {
      if (typeof n !== 'number' || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) evaluation(`${n} is not the code point of a character`);
      return newText(rt, String.fromCodePoint(n));
    },
  },
  ...(['min', 'max'] as const).map(
    (name): Builtin => ({
      name,
      arity: 2,
      sig: `${name}(a, b) -> Natural`,
      doc: `the ${name === 'min' ? 'smaller' : 'larger'} of two naturals`,
      type: ([a, b]) => {
        if (a!.k !== 'nat' && !err(a!)) return want(0, `${name} takes naturals, not ${show(a!)}`);
        if (b!.k !== 'nat' && !err(b!)) return want(1, `${name} takes naturals, not ${show(b!)}`);
        return NAT;
      },
      run: ([a, b]) => (name === 'min' ? (lt(b!, a!) ? b! : a!) : lt(a!, b!) ? b! : a!),
    }),
  ),
  {
    name: 'natural',
    arity: 1,
    sig: 'natural(text) -> Natural',
    doc: 'the natural a text of digits spells; other text cannot answer',
    type: ([t]) => (t!.k === 'text' || err(t!) ? NAT : want(0, `natural reads a text, not ${show(t!)}`)),
    run: ([t], rt) => {
      const s = (t as string).trim();
      textArg(rt, s);
      if (!/^[0-9]{1,4000}$/.test(s)) evaluation(`${JSON.stringify(s.slice(0, 40))} is not a natural`);
      return norm(BigInt(s));
    },
  },
  {
    name: 'isNatural',
    arity: 1,
    sig: 'isNatural(text) -> Boolean',
    doc: 'whether the text is all digits (so natural() can read it)',
    type: ([t]) => (t!.k === 'text' || err(t!) ? BOOL : want(0, `isNatural reads a text, not ${show(t!)}`)),
    run: ([t], rt) => {
      textArg(rt, t as string);
      return /^[0-9]{1,4000}$/.test((t as string).trim());
    },
  },
];

export const builtins: Map<string, Builtin> = new Map(builtinList.map((b) => [b.name, b]));

/**
 * Built-ins added after modules were already written and pinned: a module's own def
 * of one of these names is kept and shadows it in that module, so a package that compiled
 * before still compiles (board's `keys`); the older built-ins cannot be defined again.
 */
export const shadowable: ReadonlySet<string> = new Set(['get', 'has', 'put', 'keys', 'values', 'size', 'find', 'replace', 'split', 'code', 'char']);
