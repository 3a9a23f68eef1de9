/**
 * The town's processes as the multi-process tests start them: the server, projector workers and
 * fronts as children (`dist/src/...`), with what they print, and the command-line tools run to
 * their end.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { settingsFromEnv } from '../../src/config.js';
import { startServer } from '../../src/http/server.js';
import { issueInvitation } from '../../src/identity/operator.js';
import { IdentityService } from '../../src/identity/service.js';
import { openTown } from '../../src/town.js';
import { request } from '../world/support.js';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const mainFile = path.join(dist, 'src/main.js');
export const cliOf = (name: string) => path.join(dist, 'src/cli', `${name}.js`);

/** Runs one of our CLIs as `npm run` does, with its exit code. */
export function cli(name: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cliOf(name), ...args], { env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

export interface Child {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
  /** Resolves once what it printed matches (stdout and stderr together). */
  saw(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
}

export function run(file: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(process.execPath, [file, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    out += chunk.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const saw = (pattern: RegExp, timeoutMs: number) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const look = () => {
        const m = pattern.exec(out);
        if (!m) return;
        listeners.delete(look);
        clearTimeout(timer);
        resolve(m);
      };
      const timer = setTimeout(() => {
        listeners.delete(look);
        reject(new Error(`not seen in ${timeoutMs} ms: ${pattern}\n${out.slice(-4000)}`));
      }, timeoutMs);
      listeners.add(look);
      look();
    });
  return { child, exited, output: () => out, saw };
}

/** The `digest <name> <hash>` lines of `npm run digest` or `npm run rebuild`, sorted. */
export const digestLines = (out: string): string[] =>
  out
    .split('\n')
    .filter((l) => l.startsWith('digest '))
    .sort();

/** Kills what is still running (a test's `finally`). */
export function killAll(children: Child[]): void {
  for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
}

/**
 * Whether a read of `/AGENTS.md/receipt/{slug}` shows the receipt at `height`: it answers it, or
 * (two receipts sharing a spoken name) refuses `ambiguous` naming it among them.
 */
export function shows(
  read: { status: number; json: { class?: string; height?: number; receipt?: { height?: number }; receipts?: { height: number }[] } },
  height: number,
): boolean {
  if (read.status === 200) return (read.json.height ?? read.json.receipt?.height) === height;
  return read.status === 409 && read.json.class === 'ambiguous' && (read.json.receipts ?? []).some((r) => r.height === height);
}

export interface Guest {
  name: string;
  token: string;
}

/**
 * Founds a town on `dir` in this process and admits its guests, then closes it, so the children
 * open a town that has them. `names` accept their invitations over HTTP, as guests do (at most
 * the 16 a minute one address may); `more` are admitted through the identity service directly.
 */
export async function foundTown(dir: string, origin: string, names: string[], more: string[] = []): Promise<Guest[]> {
  const founding = await openTown({ settings: { ...settingsFromEnv({}), port: 0, dataDir: dir, inProcessProjectors: true }, origin });
  const front = await startServer(founding.app, { port: 0, host: '127.0.0.1', closeGraceMs: 1000 });
  try {
    const invite = async () => (await issueInvitation(founding.events, Date.now, { guest: null, lifetimeMs: 3_600_000 })).code;
    const guests: Guest[] = [];
    for (const name of names) {
      const r = await request(`http://127.0.0.1:${front.address.port}`, 'POST', '/AGENTS.md/accept', { json: { code: await invite(), name } });
      assert.is(r.status, 200, r.text);
      guests.push({ name, token: r.json.credential });
    }
    const service = new IdentityService({ store: founding.events, config: founding.config, clock: Date.now });
    for (const name of more) guests.push({ name, token: (await service.accept(await invite(), name)).credential });
    return guests;
  } finally {
    await front.close();
    await founding.close();
  }
}

/** The environment of the town's processes on `dir`: the embedded stores, projectors as workers. */
export function townEnv(dir: string, origin: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TOWN_DATA: dir,
    TOWN_ORIGIN: origin,
    TOWN_OPEN: '',
    EVENTSTORE_URL: '',
    MONGO_URL: '',
    TOWN_PROJECTORS: 'workers',
    PORT: '0',
    HOST: '127.0.0.1',
    ...extra,
  };
}
