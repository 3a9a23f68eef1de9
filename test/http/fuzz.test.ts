/**
 * Fuzz: over ten thousand random and mutated requests (methods, paths, headers, bodies), most
 * over kept-alive connections, some raw and malformed. No request may get a 500, none may hang,
 * the server must not crash, and every JSON reply must be well formed (an envelope on errors,
 * `_links` everywhere). Seeded: a failure prints the seed to replay it (FUZZ_SEED=n).
 */
import http from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TownContext } from '../../src/http/handler.js';
import type { SomeHandlers } from '../../src/http/route-types.js';
import { routes, routesFor } from '../../src/http/routes.js';
import { raw, startTown, type Town } from './helpers.js';

const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
const HTTP_REQUESTS = 10_000;
const RAW_REQUESTS = 400;

function prng(s: number) {
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = prng(seed);
const int = (n: number) => Math.floor(rand() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
const chance = (p: number) => rand() < p;
const printable = (n: number) => Array.from({ length: n }, () => String.fromCharCode(32 + int(95))).join('');

const segments = [
  'box',
  'hall%2Fdoor',
  'a.b_c:d-e',
  '%ZZ',
  '%00',
  '..',
  '.',
  encodeURIComponent('ünïcødé'),
  'x'.repeat(300),
  '%2F%2F',
  'lab',
  'receive',
  'card',
  'source',
  '~',
  "'",
  '*',
];
const randomValue = (depth = 0): unknown => {
  switch (int(depth > 3 ? 5 : 8)) {
    case 0:
      return int(1e6) - 1000;
    case 1:
      return printable(int(20));
    case 2:
      return null;
    case 3:
      return chance(0.5);
    case 4:
      return rand() * 1e300;
    case 5:
      return Array.from({ length: int(4) }, () => randomValue(depth + 1));
    case 6:
      return Object.fromEntries(Array.from({ length: int(4) }, () => [printable(int(8)), randomValue(depth + 1)]));
    default:
      return { tag: pick(['natural', 'label', 'record', 'list', 'variant', 'nope']), value: randomValue(depth + 1) };
  }
};
const samples: Record<string, Record<string, unknown>> = {
  accept: { code: 'svc_invite_x', name: 'ada' },
  arrive: { name: 'ada', proof: { challenge: 'c', nonce: 'n' } },
  turn: { intent: 'i', fields: { text: 'hi' } },
  scratch: { name: 'lab', from: { world: 'town', height: 1 } },
  scratchObjects: { object: 'box', entry: 'initial', intent: 'i', source: 'x', modules: [{ name: 'm', source: 's' }], law: 'l', seed: {} },
  repl: { entry: 'main', arguments: [{ tag: 'natural', value: 1 }] },
  check: { source: 'x', entry: 'main' },
  cite: { receipt: 'r' },
  feedPost: { text: 'hi', reply_to: 'at://x' },
  feedPagePost: { text: 'hi' },
  enter: { code: 'c', name: 'ada' },
  playPost: { do: 'open', 'f.key': 'k' },
};
const nested = (n: number) => `{"a":${'['.repeat(n)}${']'.repeat(n)}}`;

function body(route: string): string | undefined {
  const r = int(20);
  if (r === 0) return undefined;
  if (r === 1) return printable(int(200));
  if (r === 2) return nested(200 + int(120));
  if (r === 3) return JSON.stringify([randomValue()]);
  if (r === 4) return chance(0.2) ? `{"big":"${'x'.repeat(70_000 + int(200_000))}"}` : '{"a":1}';
  if (r === 5) return `code=${printable(5)}&name=ada&f.x=1&a[b]=2&a=1&a=2`;
  const base: Record<string, unknown> = structuredClone(samples[route] ?? { anything: 1 });
  for (let i = int(3); i > 0; i--) {
    const keys = Object.keys(base);
    const k = chance(0.3) || !keys.length ? printable(int(6)) : pick(keys);
    if (chance(0.3)) delete base[k];
    else base[k] = randomValue();
  }
  const text = JSON.stringify(base);
  return chance(0.1) ? text.slice(0, int(text.length)) : text;
}

function randomRequest(): { method: string; path: string; headers: Record<string, string>; body?: string } {
  const method = chance(0.85) ? pick(['GET', 'POST', 'POST']) : pick(['HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'BREW', 'PROPFIND']);
  // POST mostly goes where POST is taken, so that bodies reach their codecs and handlers.
  const table = routesFor(true).filter((r) => chance(0.2) || r.method === (method === 'HEAD' ? 'GET' : method));
  const route = pick(table.length ? table : routesFor(true));
  let path = chance(0.9) ? route.path.replace(/:([A-Za-z_]+)/g, () => pick(segments)) : `/${Array.from({ length: int(5) }, () => pick(segments)).join('/')}`;
  if (chance(0.4)) {
    const keys = ['full', 'compact', 'wait', 'after', 'prefix', 'intent', 'thread', 'before', 'page', 'say', 'v', 'h', printable(3).replace(/[^a-z]/g, 'q')];
    path += `?${Array.from({ length: 1 + int(3) }, () => `${pick(keys)}=${encodeURIComponent(pick(['1', '0', '2', '31', '', 'x', printable(10), 'x'.repeat(500)]))}`).join('&')}`;
  }
  const headers: Record<string, string> = {};
  const auth = int(7);
  if (auth === 0 || auth > 3) headers.Authorization = 'Bearer ada-credential';
  if (auth === 1) headers.Authorization = `Bearer ${printable(20).replace(/\s/g, '')}`;
  if (auth === 2) headers.Authorization = pick(['Basic eDp5', 'Bearer', 'bearer ada-credential', `Bearer ${'a'.repeat(5000)}`]);
  if (chance(0.2)) headers.Cookie = pick(['town_session=ada-session', 'town_session=forged', 'a=b; town_session=', printable(30).replace(/[;\s]/g, '')]);
  if (chance(0.7))
    headers['Content-Type'] = pick([
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'a/b;;;',
      'application/json; charset=latin9',
    ]);
  if (chance(0.3)) headers.Accept = pick(['application/json', 'text/html', '*/*', 'text/plain;q=0', '']);
  for (let i = int(4); i > 0; i--) headers[`X-Fuzz-${i}`] = printable(int(100)).trim() || 'v';
  const b = method === 'POST' || chance(0.1) ? body(route.base ?? route.name) : undefined;
  return { method, path, headers, body: b };
}

/** Handlers for every route: they report what reached them, so decoded bodies are exercised. */
// Built from the table itself, so each handler is the generic kind the front holds.
const handlers = Object.fromEntries(
  routes
    .filter((r) => !['guide', 'api', 'examples'].includes(r.name))
    .map((r) => [r.name, async (ctx: TownContext) => ({ route: ctx.state.route, scratch: ctx.state.scratch ?? null, body: ctx.state.body ?? null })]),
) as unknown as SomeHandlers;

let town: Town;
test.before(async () => {
  town = await startTown({ handlers, serve: { requestSeconds: 0.5 } });
});
test.after(async () => {
  await town.close();
});

const failures: string[] = [];
const seen = new Map<string, number>();
function checkReply(what: string, status: number, contentType: string | undefined, text: string, method: string) {
  const cls = /"class":"(\w+)"/.exec(text)?.[1] ?? /"error":"(\w+)"/.exec(text)?.[1] ?? '';
  seen.set(`${status} ${cls}`, (seen.get(`${status} ${cls}`) ?? 0) + 1);
  if (status === 500 || status >= 600 || status < 100) failures.push(`${status} for ${what}: ${text.slice(0, 200)}`);
  if (method === 'HEAD' || !/json/.test(contentType ?? '') || !text) return;
  let j: any;
  try {
    j = JSON.parse(text);
  } catch {
    failures.push(`unparseable JSON for ${what}`);
    return;
  }
  if (!j._links?.api) failures.push(`no _links for ${what}: ${text.slice(0, 200)}`);
  if (status >= 400 && !j.class && !j.error) failures.push(`no class for ${what}: ${text.slice(0, 200)}`);
}

test(`${HTTP_REQUESTS} random requests over kept-alive connections: no 500, no hang (seed ${seed})`, async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  let next = 0;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const r = randomRequest();
      const what = `${r.method} ${r.path.slice(0, 120)} (seed ${seed})`;
      const request = http.request(
        { host: '127.0.0.1', port: town.port, method: r.method, path: r.path, headers: r.headers, agent, timeout: 10_000 },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            checkReply(what, res.statusCode ?? 0, res.headers['content-type'], Buffer.concat(chunks).toString(), r.method);
            resolve();
          });
          res.on('error', () => resolve());
        },
      );
      request.on('timeout', () => {
        failures.push(`no answer within 10 s: ${what}`);
        request.destroy();
      });
      // A refused request closes its connection while the body may still be going out.
      request.on('error', () => resolve());
      request.end(r.body);
    });
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next++ < HTTP_REQUESTS) await one();
    }),
  );
  agent.destroy();
  assert.equal(failures.slice(0, 10), []);
  assert.is((await fetch(`${town.base}/health`)).status, 200);
});

const valid = [
  'GET /AGENTS.md/api HTTP/1.1\r\nHost: town.test\r\nAccept: application/json\r\n\r\n',
  'POST /AGENTS.md/accept HTTP/1.1\r\nHost: town.test\r\nContent-Type: application/json\r\nContent-Length: 33\r\n\r\n{"code":"svc_invite_x","name":"a"}',
  'POST /AGENTS.md/world/box/open HTTP/1.1\r\nHost: town.test\r\nAuthorization: Bearer ada-credential\r\nTransfer-Encoding: chunked\r\n\r\nd\r\n{"intent":"i"\r\n1\r\n}\r\n0\r\n\r\n',
  'GET /o/hall%2Fdoor HTTP/1.0\r\nCookie: town_session=ada-session\r\n\r\n',
];
function mutate(text: string): Buffer {
  let b = Buffer.from(text, 'latin1');
  for (let n = 1 + int(3); n > 0; n--) {
    const at = int(b.length);
    switch (int(6)) {
      case 0:
        b[at] = int(256);
        break;
      case 1:
        b = Buffer.concat([b.subarray(0, at), Buffer.from([pick([0, 9, 10, 13, 32, 58, 127, 255, int(256)])]), b.subarray(at)]);
        break;
      case 2:
        b = Buffer.concat([b.subarray(0, at), b.subarray(Math.min(b.length, at + 1 + int(10)))]);
        break;
      case 3: {
        const line = pick(text.split('\r\n').slice(1, 3));
        b = Buffer.concat([b.subarray(0, at), Buffer.from(`${line}\r\n`), b.subarray(at)]);
        break;
      }
      case 4:
        b = b.subarray(0, at);
        break;
      default:
        b = Buffer.concat([b, Buffer.from(pick(['\r\n', 'GET / HTTP/1.1\r\n\r\n', printable(50), 'x'.repeat(70_000)]))]);
    }
  }
  return b;
}

test(`${RAW_REQUESTS} mutated raw requests: an answer (never 500) or a timeout, then the next is served (seed ${seed})`, async () => {
  let next = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next++ < RAW_REQUESTS) {
        const bytes = mutate(pick(valid));
        const what = `raw ${JSON.stringify(bytes.toString('latin1').slice(0, 120))} (seed ${seed})`;
        try {
          const r = await raw(town.port, bytes, { timeoutMs: 3000 });
          checkReply(what, r.status, r.headers['content-type'], r.body, 'GET');
        } catch (e) {
          failures.push(`${(e as Error).message} for ${what}`);
        }
      }
    }),
  );
  assert.equal(failures.slice(0, 10), []);
  assert.is((await fetch(`${town.base}/health`)).status, 200);
});

test.after(() => {
  // FUZZ_VERBOSE=1 shows what the requests met, to see that they reach deep into the front.
  if (process.env.FUZZ_VERBOSE)
    console.log(
      [...seen]
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => `${n}\t${k}`)
        .join('\n'),
    );
});

test.run();
