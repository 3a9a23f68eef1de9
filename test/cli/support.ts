/**
 * Runs the command line as a child process, as an author would: `node dist/src/cli/town.js card …`
 * (the compiled file beside this test's own), with a time limit so that a hang fails the test
 * instead of the suite.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { libraryDir, libraryNames } from '../../src/cards/library/index.js';
import { runCard } from '../../src/cli/card.js';

export const townJs = fileURLToPath(new URL('../../src/cli/town.js', import.meta.url));
/** The repository (the folder holding src/cards/library). */
export const repoRoot = path.resolve(libraryDir(), '..', '..', '..');
/** Library cards as an author names them from the repository's root. */
export const libraryCards = libraryNames.map((name) => ({ name, file: `src/cards/library/${name}.card` }));

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout split into lines, without the last empty one. */
  lines: string[];
}

export function cli(args: string[], opts: { input?: string; cwd?: string; timeoutMs?: number } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [townJs, ...args], { cwd: opts.cwd ?? repoRoot, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`card ${args.join(' ')} took over ${opts.timeoutMs ?? 30_000} ms`));
    }, opts.timeoutMs ?? 30_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, lines: stdout.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1) });
    });
    child.stdin.on('error', () => {
      // The command may exit before reading standard input; that is its business.
    });
    child.stdin.end(opts.input ?? '');
  });
}

export const card = (...args: string[]) => cli(['card', ...args]);

/** A fresh folder of files (name → text), removed by the returned cleanup. */
export function tempCards(files: Record<string, string>): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'town-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export const broken = {
  /** A field without its colon. */
  parse: 'type Lamp:\n  fuel Natural\n\ndef initial() -> Lamp:\n  return Lamp { fuel: 3 }\n',
  /** Text where a Natural is wanted. */
  type: 'type Lamp:\n  fuel: Natural\n\ndef initial() -> Lamp:\n  return Lamp { fuel: "three" }\n',
  /** A module neither the package nor the library has. */
  use: 'use lamps\n\ntype Lamp:\n  fuel: Natural\n\ndef initial() -> Lamp:\n  return Lamp { fuel: 1 }\n',
};

export const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The same command run inside this process (runCard with the town.ts wiring's io): for the many
 * small refusals of a command line, where a child process per case would only add start-up time.
 */
export async function inProcess(args: string[], opts: { input?: string } = {}): Promise<Ran> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCard('card', args, {
    cwd: repoRoot,
    readStdin: async () => Buffer.from(opts.input ?? ''),
    clock: Date.now,
    out: (l) => out.push(...`${l}`.split('\n')),
    err: (l) => err.push(l),
  });
  const stdout = out.length ? `${out.join('\n')}\n` : '';
  return { code, stdout, stderr: err.length ? `${err.join('\n')}\n` : '', lines: out };
}
