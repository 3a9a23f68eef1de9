/**
 * `npm run town -- …` as an operator runs it, on a data directory (the archive and carry tests):
 * the built CLI in a process of its own, on the embedded stores, without the caller's secret.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const townCli = path.join(root, 'dist/src/cli/town.js');

export function cli(args: string[], dataDir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, TOWN_DATA: dataDir };
  delete env.TOWN_SECRET;
  delete env.EVENTSTORE_URL;
  return new Promise((resolve) => {
    execFile(process.execPath, [townCli, ...args], { env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** The `digest <name> <count> <hash>` lines a CLI printed. */
export const digestLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('digest '))
    .map((l) => l.split(' ').slice(0, 4).join(' '));
