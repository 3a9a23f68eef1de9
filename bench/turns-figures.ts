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
