/**
 * GET /AGENTS.md/examples is recorded, not written: this test drives a real server through the
 * session of test/http/session.ts, writes down each request and reply (volatile values replaced
 * by placeholders), and compares the text with the committed src/http/guide/examples.txt, which
 * the server serves. Run with UPDATE_EXAMPLES=1 to rewrite the file after a deliberate change.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Koa from 'koa';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { settingsFromEnv } from '../../src/config.js';
import { examplesFile } from '../../src/http/guide.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { openTown } from '../../src/town.js';
import { steps, type Session } from './session.js';

/**
 * The town the session runs against: the composition root (src/town.ts) on a fresh embedded
 * store, configured exactly as the README's quick start (`npm start` with no variables set:
 * an invited town at http://localhost:8080, signing, projectors in process), only its data in
 * a fresh folder, so the page shows what a new town serves. Its first invitation is the one the
 * session accepts. Steps on routes no room serves yet are skipped.
 */
async function buildTown(dataDir: string): Promise<{ app: Koa<any, any>; session: Session; close(): Promise<void> }> {
  const town = await openTown({
    settings: settingsFromEnv({ TOWN_DATA: dataDir }),
    // A fixed clock: the page must come out the same on every run.
    clock: () => Date.UTC(2026, 0, 1),
  });
  return { app: town.app, session: { invitation: town.firstInvitation }, close: () => town.close() };
}

const shownHeaders = ['content-type', 'allow', 'retry-after', 'www-authenticate', 'location', 'set-cookie', 'mcp-session-id'];

async function record(): Promise<{ text: string; served: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
  const { app, session, close } = await buildTown(dataDir);
  const server: RunningServer = await startServer(app, { port: 0, host: '127.0.0.1', closeGraceMs: 1000 });
  const base = `http://127.0.0.1:${server.address.port}`;
  try {
    const catalogue = await (await fetch(`${base}/AGENTS.md/api`)).json();
    const built = new Set<string>(catalogue.routes.filter((r: any) => r.built !== false).map((r: any) => r.name));
    const secrets = () =>
      [
        [session.credential, '<CREDENTIAL>'],
        [session.invitation, '<INVITATION>'],
        [session.mcpSession, '<SESSION>'],
      ].filter(([v]) => v) as [string, string][];
    const scrub = (s: string) => {
      let out = s;
      for (const [v, p] of secrets()) out = out.split(v).join(p);
      return out.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<TIME>').replace(/"challenge": "[^"]*"/g, '"challenge": "<CHALLENGE>"');
    };

    const out: string[] = [
      'Worked sessions with Town, recorded from a real server by test/http/examples.test.ts.',
      'Values that differ from run to run are written <CREDENTIAL>, <INVITATION>, <TIME>, <CHALLENGE>, <SESSION>.',
      'Lines starting ">" are sent, lines starting "<" are received, then the body.',
      '',
    ];
    let n = 0;
    for (const step of steps) {
      if (!step.front && !built.has(step.route)) continue; // the route is not built yet
      if (step.needs?.some((k) => session[k] === undefined)) continue; // an earlier step did not run
      const x = step.request(session);
      const body = x.body === undefined ? undefined : typeof x.body === 'string' ? x.body : JSON.stringify(x.body);
      let res: Response;
      let text: string;
      let reply: unknown;
      for (const until = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 50))) {
        res = await fetch(base + x.path, { method: x.method, headers: x.headers, body, redirect: 'manual' });
        text = await res.text();
        reply = /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : text;
        if (!step.settle || step.settle(reply, session) || Date.now() > until) break;
      }
      step.keep?.(reply, session, res.headers);
      const shown = step.show && typeof reply === 'object' ? step.show(reply) : reply;

      out.push(`## ${++n}. ${step.title}`, '', step.say, '');
      out.push(`> ${x.method} ${x.path}`);
      for (const [k, v] of Object.entries(x.headers ?? {})) out.push(`> ${k}: ${v}`);
      if (body !== undefined) out.push('>', ...body.split('\n').map((l) => `> ${l}`));
      out.push(`< ${res.status} ${res.statusText}`);
      for (const h of shownHeaders) {
        const v = res.headers.get(h);
        if (v) out.push(`< ${h.replace(/(^|-)\w/g, (c) => c.toUpperCase())}: ${v}`);
      }
      out.push(typeof shown === 'string' ? shown.trimEnd() : JSON.stringify(shown, null, 2), '');
    }
    const served = await (await fetch(`${base}/AGENTS.md/examples`)).text();
    return { text: `${scrub(out.join('\n')).trimEnd()}\n`, served };
  } finally {
    await server.close();
    await close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

test('the worked examples are what the server answers (UPDATE_EXAMPLES=1 rewrites them)', async () => {
  const { text, served } = await record();
  const file = examplesFile();
  if (process.env.UPDATE_EXAMPLES) {
    fs.writeFileSync(file, text);
    return;
  }
  const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (committed !== text) {
    assert.fixture(
      text,
      committed,
      `${file} does not match what the server answers now. If the change is intended, rebuild and run\n` +
        "  UPDATE_EXAMPLES=1 npx uvu dist/test/http 'examples\\.test\\.js$'\nand review the diff of examples.txt before committing.",
    );
  }
  assert.is(served, committed, 'GET /AGENTS.md/examples serves the committed file');
});

test('the session shows at least the catalogue and the envelope', async () => {
  const committed = fs.readFileSync(examplesFile(), 'utf8');
  assert.match(committed, '> GET /AGENTS.md/api');
  assert.match(committed, '"class": "unauthenticated"');
});

test('the session is that of a town as the quick start opens it: invited, at localhost:8080, with the genesis workshop and post office', () => {
  const committed = fs.readFileSync(examplesFile(), 'utf8');
  assert.match(committed, '"open": false');
  assert.match(committed, '"principal": "guest:localhost:8080:ada"');
  // A card made at the workbench is offered, collected, given; letters past sixteen wait and are delivered.
  assert.match(committed, '"offers": [\n    "lamp-');
  assert.match(committed, '"status": "delivered"');
  assert.match(committed, '"class": "lawRefused"');
});

test.run();
