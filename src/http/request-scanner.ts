/**
 * The request scanner of the wire guard (wire.ts): reads a connection's bytes as they arrive and
 * keeps track of where each request's line, head and body end (Content-Length and chunked
 * framing), measuring what Node's parser cannot tell apart (spec 7.1, 8): a request line over
 * 65,536 bytes, a header line over 65,536 or more than 100 headers, an HTTP version other than
 * 1.0/1.1, a malformed line. It only measures and frames; it answers nothing itself, but hands the
 * guard a Verdict naming the class to answer with.
 */
import http from 'node:http';
import type { ErrorClass } from '../contract/errors.js';
import { limits } from '../contract/limits.js';

export interface Verdict {
  cls: ErrorClass;
  message: string;
}

type State = 'line' | 'headers' | 'body' | 'chunkSize' | 'chunkData' | 'chunkEnd' | 'trailers' | 'lost';

const tokenRe = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const targetRe = /^[\x21-\x7e]+$/;
/** `METHOD SP target SP HTTP/d.d`: a token, visible ASCII, a version. */
const requestLineRe = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) ([\x21-\x7e]+) HTTP\/([0-9])\.([0-9])$/;
/** `name: value`: a token, then no control character but HTAB. */
const headerRe = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):([^\x00-\x08\x0a-\x1f\x7f]*)$/;
/** How much of a header line is kept to read its name and (for framing headers) value. */
const capture = 1024;
/** The bytes of a token (RFC 9110 tchar), as `tokenRe`. */
const tchar = new Uint8Array(256);
for (const c of "!#$%&'*+.^_`|~-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") tchar[c.charCodeAt(0)] = 1;
/** GET, HEAD or POST at `buf[start..end)`, without making a string. */
function knownMethod(buf: Buffer, start: number, end: number): string | undefined {
  const n = end - start;
  if (n === 3 && buf[start] === 71 && buf[start + 1] === 69 && buf[start + 2] === 84) return 'GET';
  if (n === 4 && buf[start] === 80 && buf[start + 1] === 79 && buf[start + 2] === 83 && buf[start + 3] === 84) return 'POST';
  if (n === 4 && buf[start] === 72 && buf[start + 1] === 69 && buf[start + 2] === 65 && buf[start + 3] === 68) return 'HEAD';
  return undefined;
}
/** `fastLine` could not settle the line: read it as text. */
const slow = Symbol('slow');
/** Methods Node's parser knows, less CONNECT (which Node hands to a tunnel, not a request). */
const parsedMethods = new Set(http.METHODS.filter((m) => m !== 'CONNECT'));

/** The largest body limit of any route (routes.ts; a test checks every row stays within it). */
export const largestBody = Math.max(limits.bodyBytes, limits.bodyBytesUnauthenticated, limits.hostedWriteBodyBytes);
/**
 * What the wire refuses before any route is known: far over every route's limit. A declaration
 * nearer is the route's to refuse (request-body.ts), in its own shape: an /xrpc route answers
 * AT Protocol's `InvalidRequest`, not the town's envelope.
 */
export const wireBodyCeiling = 2 * largestBody;

/**
 * Incremental scanner of the HTTP/1.x requests on one connection. `feed` returns a verdict as
 * soon as one is certain (a request line over the limit is refused at its 65538th byte, not at
 * its end).
 */
export class RequestScanner {
  state: State = 'line';
  /** Requests that have wholly arrived. */
  completed = 0;
  /** Whether any byte of the next request has arrived. */
  started = false;
  /** Where the target of the request being read lies, once its line was (read when needed). */
  private targetAt?: { buf: Buffer; start: number; end: number };
  private targetText?: string;
  private parts: Buffer[] = [];
  private kept = 0;
  private lineLength = 0;
  private lastByte = -1;
  private remaining = 0;
  private method = '';
  private http11 = false;
  private headers = 0;
  private host = false;
  private contentLength?: string;
  private transferEncoding?: string;

  /** The target of the request being read, once its line was (for the envelope's `self`). */
  get target(): string | undefined {
    if (this.targetText === undefined && this.targetAt) this.targetText = this.targetAt.buf.toString('latin1', this.targetAt.start, this.targetAt.end);
    return this.targetText;
  }

  set target(text: string | undefined) {
    this.targetText = text;
    this.targetAt = undefined;
  }

  /** The scanner is inside a request's head (line or header lines). */
  get inHead(): boolean {
    return (this.state === 'line' && this.started) || this.state === 'headers';
  }

  feed(buf: Buffer): Verdict | undefined {
    let i = 0;
    while (i < buf.length) {
      if (this.state === 'lost') return undefined;
      this.started = true;
      if (this.state === 'body' || this.state === 'chunkData') {
        const n = Math.min(this.remaining, buf.length - i);
        i += n;
        this.remaining -= n;
        if (this.remaining === 0) {
          if (this.state === 'body') this.endMessage();
          else this.state = 'chunkEnd';
        }
        continue;
      }
      const lf = buf.indexOf(10, i);
      const end = lf === -1 ? buf.length : lf;
      const max = this.maxLine();
      // The common case: a whole, short line inside this chunk, read without copying.
      if (lf !== -1 && this.lineLength === 0 && end - i <= capture) {
        const length = end - i;
        if (length === 0 || buf[end - 1] !== 13) return { cls: 'badRequest', message: 'lines of a request end with CRLF' };
        if (length - 1 > max) return this.tooLong(buf.subarray(i, end));
        let v = this.fastLine(buf, i, end - 1);
        if (v === slow) v = this.line(buf.toString('latin1', i, end - 1), length - 1);
        i = lf + 1;
        if (v) return v;
        continue;
      }
      this.lineLength += end - i;
      if (end > i) this.lastByte = buf[end - 1];
      // A line may end with CR before its LF: one byte of grace until the LF shows which.
      if (this.lineLength > max + 1) return this.tooLong(Buffer.concat([...this.parts, buf.subarray(i, end)]));
      const want = this.state === 'line' ? max + 1 : capture;
      if (this.kept < want) {
        const take = Math.min(end - i, want - this.kept);
        this.parts.push(buf.subarray(i, i + take));
        this.kept += take;
      }
      if (lf === -1) return undefined;
      i = lf + 1;
      const raw = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts);
      const length = this.lineLength;
      const whole = this.kept === length;
      const cr = this.lastByte === 13;
      this.parts = [];
      this.kept = 0;
      this.lineLength = 0;
      this.lastByte = -1;
      if (length === 0 || !cr) return { cls: 'badRequest', message: 'lines of a request end with CRLF' };
      if (length - 1 > max) return this.tooLong(raw);
      // A line longer than what is kept is read by its kept prefix (its name; see `capture`).
      const v = this.line(raw.toString('latin1', 0, whole ? raw.length - 1 : raw.length), length - 1);
      if (v) return v;
    }
    return undefined;
  }

  /**
   * The usual request line and header lines, checked byte by byte with no string or regular
   * expression: exactly what `requestLine` and `header` accept. Anything else (other versions,
   * framing headers, faults) is `slow`, for those to read and answer.
   */
  private fastLine(buf: Buffer, start: number, stop: number): Verdict | undefined | typeof slow {
    if (start === stop) return this.state === 'headers' ? this.headEnd() : slow;
    let j = start;
    while (j < stop && tchar[buf[j]] === 1) j++;
    if (this.state === 'headers') {
      const name = j - start;
      if (name === 0 || j === stop || buf[j] !== 58 || name === 14 || name === 17) return slow;
      for (let k = j + 1; k < stop; k++) {
        const c = buf[k];
        if ((c < 32 && c !== 9) || c === 127) return slow;
      }
      if (++this.headers > limits.headers) return { cls: 'headersTooLarge', message: `more than ${limits.headers} headers` };
      // `x | 32` is a letter's lower case (and no other token byte lands on these letters).
      if (name === 4 && (buf[start] | 32) === 104 && (buf[start + 1] | 32) === 111 && (buf[start + 2] | 32) === 115 && (buf[start + 3] | 32) === 116)
        this.host = true;
      return undefined;
    }
    if (this.state !== 'line') return slow;
    if (j === start || j === stop || buf[j] !== 32) return slow;
    const methodEnd = j++;
    const targetStart = j;
    while (j < stop && buf[j] >= 0x21 && buf[j] <= 0x7e) j++;
    if (j === targetStart || j === stop || buf[j] !== 32) return slow;
    const targetEnd = j++;
    // `HTTP/1.1` or `HTTP/1.0`
    if (
      stop - j !== 8 ||
      buf[j] !== 72 ||
      buf[j + 1] !== 84 ||
      buf[j + 2] !== 84 ||
      buf[j + 3] !== 80 ||
      buf[j + 4] !== 47 ||
      buf[j + 5] !== 49 ||
      buf[j + 6] !== 46 ||
      (buf[j + 7] !== 48 && buf[j + 7] !== 49)
    )
      return slow;
    this.targetText = undefined;
    this.targetAt = { buf, start: targetStart, end: targetEnd };
    return this.headStarts(knownMethod(buf, start, methodEnd) ?? buf.toString('latin1', start, methodEnd), buf[j + 7] === 49);
  }

  /** A request line was read: its head's header lines come next. */
  private headStarts(method: string, http11: boolean): undefined {
    this.method = method;
    this.http11 = http11;
    this.state = 'headers';
    this.headers = 0;
    this.host = false;
    this.contentLength = undefined;
    this.transferEncoding = undefined;
    return undefined;
  }

  private maxLine(): number {
    switch (this.state) {
      case 'line':
        return limits.requestLineBytes;
      case 'headers':
      case 'trailers':
        return limits.headerLineBytes;
      case 'chunkSize':
        return 1024;
      default:
        return 0;
    }
  }

  /** `line`: the start of the line too long (the request line's target names the envelope's `self`). */
  private tooLong(line: Buffer): Verdict | undefined {
    if (this.state === 'line') {
      // Its path, without the query that made it too long, when that much is short and readable.
      const m = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ (\/[\x21-\x3e\x40-\x7e]{0,2047})(?:[? ]|$)/.exec(line.toString('latin1', 0, Math.min(line.length, 4096)));
      if (m) this.target = m[1];
      return { cls: 'uriTooLong', message: `the request line is over ${limits.requestLineBytes} bytes` };
    }
    if (this.state === 'headers' || this.state === 'trailers')
      return { cls: 'headersTooLarge', message: `a header line is over ${limits.headerLineBytes} bytes` };
    // A chunk-size line past all reason is a framing fault inside a body: Node's to refuse.
    this.state = 'lost';
    return undefined;
  }

  private line(text: string, length: number): Verdict | undefined {
    switch (this.state) {
      case 'line':
        return this.requestLine(text);
      case 'headers':
        return text === '' ? this.headEnd() : this.header(text, length);
      case 'chunkSize': {
        const m = /^([0-9A-Fa-f]{1,15})(;.*)?$/.exec(text);
        // A framing fault inside a body is Node's to refuse; the scanner stops following.
        if (!m) this.state = 'lost';
        else {
          this.remaining = parseInt(m[1], 16);
          this.state = this.remaining === 0 ? 'trailers' : 'chunkData';
        }
        return undefined;
      }
      case 'chunkEnd':
        this.state = text === '' ? 'chunkSize' : 'lost';
        return undefined;
      case 'trailers':
        if (text === '') this.endMessage();
        else if (++this.headers > limits.headers) return { cls: 'headersTooLarge', message: `more than ${limits.headers} headers` };
        return undefined;
      default:
        return undefined;
    }
  }

  private requestLine(text: string): Verdict | undefined {
    if (text === '') return undefined; // RFC 9112 2.2: empty lines before a request are ignored
    const m = requestLineRe.exec(text);
    if (!m) {
      const parts = text.split(' ');
      if (parts.length === 3 && tokenRe.test(parts[0]) && targetRe.test(parts[1]) && /^HTTP\/[0-9.]+$/.test(parts[2])) {
        this.target = parts[1];
        return { cls: 'httpVersion', message: `${parts[2]} is not served; use HTTP/1.1 or HTTP/1.0` };
      }
      return { cls: 'badRequest', message: 'a request line is `METHOD target HTTP/1.1`' };
    }
    if (m[3] !== '1' || (m[4] !== '0' && m[4] !== '1')) {
      this.target = m[2];
      return { cls: 'httpVersion', message: `HTTP/${m[3]}.${m[4]} is not served; use HTTP/1.1 or HTTP/1.0` };
    }
    this.target = m[2];
    return this.headStarts(m[1]!, m[4] === '1');
  }

  private header(text: string, length: number): Verdict | undefined {
    if (++this.headers > limits.headers) return { cls: 'headersTooLarge', message: `more than ${limits.headers} headers` };
    const m = headerRe.exec(text);
    if (!m) {
      const colon = text.indexOf(':');
      if (colon > 0 && tokenRe.test(text.slice(0, colon))) return { cls: 'badRequest', message: 'a header value holds a control character' };
      return { cls: 'badRequest', message: 'a header line is `Name: value`, the name a token (no folded lines)' };
    }
    // Only three names matter to the scanner; their lengths tell them apart before any lowering.
    const n = m[1].length;
    if (n !== 4 && n !== 14 && n !== 17) return undefined;
    const name = m[1].toLowerCase();
    const value = m[2];
    if (name === 'host') this.host = true;
    else if (name === 'content-length' || name === 'transfer-encoding') {
      if (length > capture) return { cls: 'badRequest', message: `the ${name} header is malformed` };
      if (name === 'content-length') {
        if (this.contentLength !== undefined) return { cls: 'badRequest', message: 'Content-Length is given twice' };
        this.contentLength = value.trim();
        if (!/^[0-9]+$/.test(this.contentLength)) return { cls: 'badRequest', message: 'Content-Length is not a number' };
      } else {
        this.transferEncoding = this.transferEncoding === undefined ? value.trim() : `${this.transferEncoding}, ${value.trim()}`;
      }
    }
    return undefined;
  }

  private headEnd(): Verdict | undefined {
    if (!parsedMethods.has(this.method)) {
      return { cls: 'notImplemented', message: `no route takes the method ${this.method}; routes take GET, HEAD, POST and DELETE` };
    }
    if (this.http11 && !this.host) return { cls: 'badRequest', message: 'an HTTP/1.1 request needs a Host header' };
    if (this.transferEncoding !== undefined) {
      if (this.contentLength !== undefined) return { cls: 'badRequest', message: 'Content-Length and Transfer-Encoding are both given' };
      const codings = this.transferEncoding
        .toLowerCase()
        .split(',')
        .map((s) => s.trim());
      if (codings[codings.length - 1] !== 'chunked') return { cls: 'badRequest', message: 'a request body is sent with Content-Length or chunked' };
      this.state = 'chunkSize';
      return undefined;
    }
    const length = this.contentLength === undefined ? 0 : Number(this.contentLength);
    // More than any route reads: refused here, before the body, whatever the route. Node's parser
    // cannot even hold a length of 2^64 or more (it would say badRequest); the route's own limit
    // (request-body.ts) refuses smaller declarations as soon as the route is known.
    if (length > wireBodyCeiling) {
      return {
        cls: 'bodyTooLarge',
        message: `the body is declared as ${this.contentLength?.slice(0, 24)} bytes, far more than any route reads (${largestBody})`,
      };
    }
    if (length === 0) this.endMessage();
    else {
      this.remaining = length;
      this.state = 'body';
    }
    return undefined;
  }

  private endMessage() {
    this.completed++;
    this.target = undefined;
    this.started = false;
    this.state = 'line';
  }
}
