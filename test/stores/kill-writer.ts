/**
 * Runs a writer script in a child process and kills it with SIGKILL `aliveMs` after it says
 * `ready`; resolves with the whole `ack …` lines it printed before dying (the last line may have
 * been cut by the kill, so only lines ended by a newline count). The crash tests of both stores
 * use it.
 */
import { spawn } from 'node:child_process';

export function ackedBeforeKill(script: string, args: string[], aliveMs: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let timer: NodeJS.Timeout | undefined;
    const guard = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!timer && out.startsWith('ready\n')) timer = setTimeout(() => child.kill('SIGKILL'), aliveMs);
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(guard);
      if (signal !== 'SIGKILL') return reject(new Error(`writer exited with ${code}: ${err}`));
      resolve(
        out
          .split('\n')
          .slice(0, -1)
          .filter((l) => l.startsWith('ack '))
          .map((l) => l.slice(4)),
      );
    });
  });
}
