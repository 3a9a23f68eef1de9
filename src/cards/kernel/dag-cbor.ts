/**
 * Canonical DAG-CBOR of journal entries, written straight into one reused buffer.
 *
 * Why not @ipld/dag-cbor alone: it builds tokens, sorts map entries through a generic sorter and
 * concatenates chunks, which was about 40% of deciding a turn. Entries are plain data (maps with
 * ASCII keys, arrays, text, safe integers, booleans), so this writer handles exactly that and
 * gives up on anything else (a float, a non-ASCII key, bytes, a CID, a cycle …): `withEncoded`
 * then answers undefined and the caller encodes with @ipld/dag-cbor, the reference. Either way
 * the bytes are the reference's; test/cards/kernel/dag-cbor.test.ts checks that on many random
 * values and on the entries of random journals.
 *
 * The rules followed (DAG-CBOR spec): map keys sorted length-first, then bytewise; integers in
 * their shortest form; definite lengths; text as UTF-8 (a lone surrogate as U+FFFD, as the
 * reference writes it); absent (undefined) map values left out, as `canonicalBytes` leaves them.
 *
 * Entries repeat a few dozen object shapes (typed data nodes, receipts, writes), so the
 * canonical key order of each shape is worked out once and kept (`Shape`).
 */

class GiveUp extends Error {}
const giveUp = new GiveUp();

/** Deeper than this is surely a cycle or abuse: let the reference say what is wrong. */
const maxDepth = 512;

let buf = Buffer.allocUnsafe(1 << 16);
let pos = 0;
/** Set while writing, so a getter that encodes again (it never should) gets the reference encoder. */
let busy = false;

function room(n: number): void {
  if (pos + n <= buf.length) return;
  let size = buf.length * 2;
  while (size < pos + n) size *= 2;
  const next = Buffer.allocUnsafe(size);
  buf.copy(next, 0, 0, pos);
  buf = next;
}

/** A CBOR head: major type and its argument in the fewest bytes. */
function head(major: number, n: number): void {
  room(9);
  const b = buf;
  let p = pos;
  const m = major << 5;
  if (n < 24) b[p++] = m | n;
  else if (n < 0x100) {
    b[p++] = m | 24;
    b[p++] = n;
  } else if (n < 0x10000) {
    b[p++] = m | 25;
    b[p++] = n >>> 8;
    b[p++] = n & 0xff;
  } else if (n < 0x100000000) {
    b[p++] = m | 26;
    b.writeUInt32BE(n, p);
    p += 4;
  } else {
    b[p++] = m | 27;
    b.writeUInt32BE(Math.floor(n / 0x100000000), p);
    b.writeUInt32BE(n >>> 0, p + 4);
    p += 8;
  }
  pos = p;
}

/**
 * Text: short text is copied char by char (a native call costs as much as ~20 chars); longer
 * text is written natively after a head that assumes ASCII (one byte a char), corrected when
 * the byte count says otherwise (UTF-8 writes every non-ASCII char in more than one byte).
 */
function text(s: string): void {
  const n = s.length;
  if (n < 20) {
    const start = pos;
    head(3, n);
    room(n);
    const b = buf;
    let p = pos;
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c > 0x7f) break;
      b[p++] = c;
    }
    if (i === n) {
      pos = p;
      return;
    }
    pos = start;
  } else {
    const start = pos;
    head(3, n);
    room(3 * n);
    const written = buf.write(s, pos, 'utf8');
    if (written === n) {
      pos += n;
      return;
    }
    pos = start;
  }
  const bytes = Buffer.byteLength(s, 'utf8');
  head(3, bytes);
  room(bytes);
  pos += buf.write(s, pos, bytes, 'utf8');
}

/** A map key already known to be ASCII. */
function key(s: string): void {
  const n = s.length;
  head(3, n);
  room(n);
  const b = buf;
  let p = pos;
  for (let i = 0; i < n; i++) b[p++] = s.charCodeAt(i);
  pos = p;
}

/** Length first, then bytewise (for ASCII keys, bytewise is JS string order). */
const keyBefore = (a: string, b: string) => a.length < b.length || (a.length === b.length && a < b);

/** Keys of one object shape in the order `for…in` gives them, and the canonical order as indices into them. */
interface Shape {
  keys: string[];
  order: number[];
}

/** Shapes by their first key; bounded, since a client's cited entry could bring any keys at all. */
const shapes = new Map<string, Shape[]>();
let shapeCount = 0;
const maxShapes = 4096;

const isAscii = (s: string) => {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
};

function shapeOf(keys: string[], n: number): Shape {
  const list = shapes.get(keys[0]!);
  if (list) {
    next: for (const shape of list) {
      if (shape.keys.length !== n) continue;
      for (let i = 1; i < n; i++) if (shape.keys[i] !== keys[i]) continue next;
      return shape;
    }
  }
  const own = keys.slice(0, n);
  // a non-ASCII key would need bytewise ordering; `/` and `asCID` are what the reference reads as a CID
  for (const k of own) if (!isAscii(k) || k === '/' || k === 'asCID') throw giveUp;
  const order = own.map((_, i) => i).sort((a, b) => (keyBefore(own[a]!, own[b]!) ? -1 : keyBefore(own[b]!, own[a]!) ? 1 : 0));
  const shape = { keys: own, order };
  if (shapeCount < maxShapes) {
    shapeCount++;
    if (list) list.push(shape);
    else shapes.set(own[0]!, [shape]);
  }
  return shape;
}

/** Per nesting depth, the keys and values of the object being written there (reused, never reallocated). */
const keyStack: string[][] = [];
const valueStack: unknown[][] = [];

function map(o: object, depth: number): void {
  const keys = (keyStack[depth] ??= []);
  const values = (valueStack[depth] ??= []);
  let n = 0;
  let absent = 0;
  // for…in reads each value through the enumeration cache, much cheaper than o[k] later
  for (const k in o) {
    const v = (o as Record<string, unknown>)[k];
    keys[n] = k;
    values[n++] = v;
    if (v === undefined) absent++;
  }
  if (n === 0) {
    room(1);
    buf[pos++] = 0xa0;
    return;
  }
  const shape = shapeOf(keys, n);
  head(5, n - absent);
  const order = shape.order;
  for (let j = 0; j < n; j++) {
    const i = order[j]!;
    const v = values[i];
    values[i] = undefined;
    if (v === undefined) continue;
    key(shape.keys[i]!);
    value(v, depth + 1);
  }
}

function value(v: unknown, depth: number): void {
  switch (typeof v) {
    case 'string':
      return text(v);
    case 'number':
      if (!Number.isSafeInteger(v) || Object.is(v, -0)) throw giveUp;
      return v >= 0 ? head(0, v) : head(1, -1 - v);
    case 'boolean':
      room(1);
      buf[pos++] = v ? 0xf5 : 0xf4;
      return;
    case 'object':
      break;
    default:
      throw giveUp;
  }
  if (v === null) {
    room(1);
    buf[pos++] = 0xf6;
    return;
  }
  if (depth > maxDepth) throw giveUp;
  if (Array.isArray(v)) {
    const n = v.length;
    head(4, n);
    for (let i = 0; i < n; i++) {
      const x: unknown = v[i];
      if (x === undefined) throw giveUp;
      value(x, depth + 1);
    }
    return;
  }
  // for…in also walks inherited keys, which only plain objects are sure not to have
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) throw giveUp;
  map(v, depth);
}

/**
 * Encodes `body` and hands the bytes (a view of the shared buffer, valid only during `use`) to
 * `use`; answers undefined when the body is not plain entry data (the caller then asks the
 * reference encoder, which encodes it or says why it cannot).
 */
export function withEncoded<T>(body: unknown, use: (bytes: Buffer) => T): T | undefined {
  // re-entered from a getter: keep the outer encoding intact and let the reference do this one
  if (busy) return undefined;
  busy = true;
  try {
    pos = 0;
    value(body, 0);
    return use(buf.subarray(0, pos));
  } catch (e) {
    // let go of what the abandoned maps were holding
    for (const values of valueStack) values?.fill(undefined);
    if (e instanceof GiveUp || e instanceof RangeError) return undefined;
    throw e;
  } finally {
    busy = false;
  }
}
