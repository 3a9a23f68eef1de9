/**
 * Ticks per second of the card language on a loop-heavy card, against the same loop written
 * in plain JS in the same run (so the ratio means something on a noisy shared machine).
 *   npm run bench -- ticks            (or: node dist/bench/ticks.js [--n=2000000])
 */
import { compile } from '../src/cards/compile.js';
import { sealedLibrary } from '../src/cards/library/index.js';
import { defaultOptions } from '../src/cards/kernel/options.js';
import { natural, record } from '../src/contract/typed.js';

const source = `
type Counter:
  total: Natural
  spins: Natural

def initial() -> Counter:
  return Counter { total: 0, spins: 0 }

# The loop the bench measures: arithmetic, a comparison and two assignments per turn.
spell spin(self: Counter, n: Natural 0..100000000) -> Counter:
  let i = 0
  let total = self.total
  while i < n:
    total = total + i * 3 % 7
    i = i + 1
  return self { total: total, spins: self.spins + 1 }
`;

/** The same loop in plain JS. */
function spinJs(total: number, n: number): number {
  let i = 0;
  while (i < n) {
    total = total + ((i * 3) % 7);
    i = i + 1;
  }
  return total;
}

/** Puts into a map and appends to a list, n of each in one run. */
const rows = `
def puts(n: Natural) -> Natural:
  let m: Map Natural Natural = {}
  for i in 1..n:
    m = put(m, i * 7919 % 1000003, i)
  return size(m)

def appends(n: Natural) -> Natural:
  let xs: List Natural = []
  for i in 1..n:
    xs = append(xs, i)
  return length(xs)
`;

/**
 * Map puts and list appends: n of them in one run under a turn's budget, and the cost of one
 * (ticks, heap, time) at 100, 1,000 and 10,000 entries, which should stay flat (log n ticks).
 */
function rowsFigures(): { puts10k: { ticks: number; heap: number }; perPut: Record<number, number> } {
  const r = compile({ modules: [{ name: 'rows', source: rows }] }, sealedLibrary());
  if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
  const p = r.program;
  const turn = defaultOptions.budget;
  const perPut: Record<number, number> = {};
  let puts10k = { ticks: 0, heap: 0 };
  for (const entry of ['puts', 'appends'] as const) {
    for (const n of [100, 1_000, 10_000]) {
      let best = Infinity;
      let usage = { ticks: 0, heap: 0, bytes: 0 };
      for (let round = 0; round < 5; round++) {
        const t0 = process.hrtime.bigint();
        const out = p.runEntry(entry, [natural(n)], turn);
        const t1 = process.hrtime.bigint();
        if (!out.ok) throw new Error(`${n} ${entry} in one turn: ${JSON.stringify(out.refusal)}`);
        usage = out.usage;
        best = Math.min(best, Number(t1 - t0));
      }
      if (entry === 'puts') perPut[n] = usage.ticks / n;
      if (entry === 'puts' && n === 10_000) puts10k = { ticks: usage.ticks, heap: usage.heap };
      console.log(
        `${entry} ${n}: ${usage.ticks} ticks, ${usage.heap} heap of a turn's ${turn.ticks} / ${turn.heap}; ` +
          `each ${(usage.ticks / n).toFixed(1)} ticks, ${(usage.heap / n).toFixed(1)} heap, ${(best / n).toFixed(0)} ns`,
      );
    }
  }
  return { puts10k, perPut };
}

export async function main(args: string[] = []): Promise<{ ticksPerSecond: number; slowdown: number }> {
  const nArg = args.find((a) => a.startsWith('--n='));
  const n = nArg ? Number(nArg.slice(4)) : 2_000_000;
  const r = compile({ modules: [{ name: 'counter', source }] }, sealedLibrary());
  if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
  const p = r.program;
  const budget = { ticks: Number.MAX_SAFE_INTEGER, heap: 1 << 30, bytes: 1 << 20 };
  const ctx = { caller: 'guest:bench:b', owner: 'guest:bench:b', self: 'counter', now: 0 };
  const init = p.initial(budget, ctx);
  if (!init.ok) throw new Error(JSON.stringify(init.refusal));
  const args1 = record({ n: natural(n) });

  // Warm up both, then take the best of a few runs of each.
  let ticks = 0;
  let cardBest = Infinity;
  let jsBest = Infinity;
  let sink = 0;
  for (let round = 0; round < 5; round++) {
    const t0 = process.hrtime.bigint();
    const out = p.call('spin', init.state, args1, ctx, budget);
    const t1 = process.hrtime.bigint();
    if (!out.ok) throw new Error(JSON.stringify(out.refusal));
    ticks = out.usage.ticks;
    if (round > 0) cardBest = Math.min(cardBest, Number(t1 - t0) / 1e9);
    const j0 = process.hrtime.bigint();
    sink += spinJs(0, n);
    const j1 = process.hrtime.bigint();
    if (round > 0) jsBest = Math.min(jsBest, Number(j1 - j0) / 1e9);
  }
  const ticksPerSecond = ticks / cardBest;
  const cardLoops = n / cardBest;
  const jsLoops = n / jsBest;
  const slowdown = jsLoops / cardLoops;
  console.log(`loop of ${n} turns: ${ticks} ticks (${(ticks / n).toFixed(1)} a turn)`);
  console.log(`card: ${(cardBest * 1000).toFixed(1)} ms, ${(ticksPerSecond / 1e6).toFixed(1)}M ticks/s, ${(cardLoops / 1e6).toFixed(1)}M loop turns/s`);
  console.log(`plain JS: ${(jsBest * 1000).toFixed(2)} ms, ${(jsLoops / 1e6).toFixed(1)}M loop turns/s (checksum ${sink % 1000})`);
  console.log(`the card runs the loop ${slowdown.toFixed(1)}x slower than plain JS; goal >= 20M ticks/s: ${ticksPerSecond >= 20e6 ? 'met' : 'NOT met'}`);
  const { puts10k, perPut } = rowsFigures();
  const flat = perPut[10_000]! / perPut[100]!;
  console.log(
    `10,000 map puts in one turn: ${puts10k.ticks} ticks, ${puts10k.heap} heap (within budget); ticks per put ${perPut[100]!.toFixed(1)} at 100, ${perPut[10_000]!.toFixed(1)} at 10,000 (x${flat.toFixed(2)}, log n)`,
  );
  return { ticksPerSecond, slowdown };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
