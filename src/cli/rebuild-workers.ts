/**
 * `npm run rebuild -- --workers=n`, the part that runs the groups: one child process per group of
 * read models (cli/rebuild-group.ts), all folding the same journal up to the same head at once,
 * each on its own core. The fold is CPU (decoding events, computing documents); LMDB takes one
 * writer at a time, so the processes share the disk's commits but not their work. The rebuild
 * waits for every group, and fails as soon as one fails: the others are stopped, and the error
 * carries what the failed one wrote on stderr.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Progress, RebuildResult } from '../projections/rebuild.js';
import type { GroupMessage } from './rebuild-group.js';

export interface GroupOptions {
  /** The last position every group folds (the journal's head when the rebuild began). */
  head: bigint;
  /** The progress of the slowest group, labelled with its read models. */
  onProgress?(p: Progress): void;
  /** A line for the operator (which process folds which group). */
  onStart?(line: string): void;
}

/** The most of a group's output kept for its error. */
const KEEP = 16 * 1024;
const groupEntry = fileURLToPath(new URL('./rebuild-group.js', import.meta.url));

/** Folds each group in its own process; resolves with each group's result, in the groups' order. */
export async function foldInGroups(groups: readonly string[][], options: GroupOptions): Promise<RebuildResult[]> {
  const latest: (Progress | undefined)[] = groups.map(() => undefined);
  const report = () => {
    if (!options.onProgress) return;
    // The slowest group decides when the rebuild ends; one that has not reported is at the start.
    let slowest = 0;
    for (let i = 1; i < groups.length; i++) if ((latest[i]?.position ?? 0n) < (latest[slowest]?.position ?? 0n)) slowest = i;
    options.onProgress(
      latest[slowest] ?? { projection: groups[slowest]!.join(','), events: 0, position: 0n, head: options.head, eventsPerSecond: 0, etaSeconds: undefined },
    );
  };
  const children: ChildProcess[] = [];
  let stopping = false;
  const stopOthers = () => {
    if (stopping) return;
    stopping = true;
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  const runs = groups.map(
    (names, i) =>
      new Promise<RebuildResult>((resolve, reject) => {
        const child = fork(groupEntry, [...names, `--head=${options.head}`], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], serialization: 'advanced' });
        children.push(child);
        options.onStart?.(`rebuild worker ${i + 1} of ${groups.length} (pid ${child.pid}): ${names.join(', ')}`);
        let output = '';
        const keep = (chunk: Buffer) => {
          output = (output + chunk.toString()).slice(-KEEP);
        };
        child.stdout!.on('data', keep);
        child.stderr!.on('data', keep);
        let result: RebuildResult | undefined;
        child.on('message', (message: GroupMessage) => {
          if ('result' in message) result = message.result;
          else {
            latest[i] = message.progress;
            report();
          }
        });
        child.on('error', (error) => {
          stopOthers();
          reject(error);
        });
        child.on('close', (code, signal) => {
          if (code === 0 && result) return resolve(result);
          const how = signal ? `was killed by ${signal}` : code === 0 ? 'exited without its result' : `exited with code ${code}`;
          const said = output.trim();
          const error = new Error(`the rebuild worker folding ${names.join(', ')} (pid ${child.pid}) ${how}${said ? `:\n${said}` : ''}`);
          // The groups this rebuild stopped after another failed are not the failure.
          (error as Error & { stopped?: boolean }).stopped = stopping;
          stopOthers();
          reject(error);
        });
      }),
  );
  const settled = await Promise.allSettled(runs);
  const failures = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as Error & { stopped?: boolean }] : []));
  if (failures.length) throw failures.find((f) => !f.stopped) ?? failures[0]!;
  return settled.map((s) => (s as PromiseFulfilledResult<RebuildResult>).value);
}
