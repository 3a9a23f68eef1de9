/** Small figures shared by the turns bench and the processes it measures. */
import fs from 'node:fs';

export function flag(args: string[], name: string, fallback: number): number {
  const a = args.find((x) => x.startsWith(`--${name}=`));
  return a ? Number(a.slice(name.length + 3)) : fallback;
}

export const percentile = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** CPU time this process has used (every thread: the projector thread's folding counts too). */
export function cpuUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/**
 * CPU time by thread name (user and system, µs), from /proc: the JavaScript profile shows only the
 * isolates' threads, while a turn's cost also lands on libuv's pool (fsync), LMDB's and V8's
 * helper threads and the kernel.
 */
export function threadCpuUs(): Record<string, { user: number; system: number }> {
  const out: Record<string, { user: number; system: number }> = {};
  const tick = 1e6 / 100; // USER_HZ is 100 on Linux
  for (const tid of fs.readdirSync('/proc/self/task')) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended
    }
    // Node names every thread `node`: the main thread is the one whose id is the process's.
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // A thread with a nice value of its own is the repository's projector (town.ts repositoryNice).
    const nice = Number(f[16]);
    const name = tid === String(process.pid) ? 'main' : nice > 0 ? `nice${nice}` : comm === 'node' ? `t${tid}` : comm;
    const row = (out[name] ??= { user: 0, system: 0 });
    row.user += Number(f[11]) * tick;
    row.system += Number(f[12]) * tick;
  }
  return out;
}

export const median = (xs: number[]) => percentile(xs, 50);

export function vmHwmMb(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) / 1024 : process.memoryUsage().rss / 1048576;
}

/** Which statuses an autocannon run's non-2xx replies had, `503×12 429×3` (a bench that fails quietly measures nothing). */
export function failedStatuses(r: { statusCodeStats?: unknown }): string {
  return Object.entries((r.statusCodeStats ?? {}) as Record<string, { count: number }>)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, v]) => `${code}×${v.count}`)
    .join(' ');
}
