/**
 * The town's processes as the multi-process tests start them: the server, projector workers and
 * fronts as children (`dist/src/...`), with what they print, and the command-line tools run to
 * their end.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
