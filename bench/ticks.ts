/**
 * Ticks per second of the card language on a loop-heavy card, against the same loop written
 * in plain JS in the same run (so the ratio means something on a noisy shared machine).
 *   npm run bench -- ticks            (or: node dist/bench/ticks.js [--n=2000000])
 */
import { compile } from '../src/cards/compile.js';
import { sealedLibrary } from '../src/cards/library/index.js';
import { natural, record } from '../src/cards/typed.js';

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
  return { ticksPerSecond, slowdown };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
