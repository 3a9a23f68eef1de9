/**
 * `npm run bench [-- name …]`: runs the named benchmarks (all when none is named). Each bench
 * measures its own baseline in the same run and prints ratios, because these machines are
 * noisy and absolute figures mean little from one run to the next.
 */
const benches: Record<string, string> = {
  store: './store.js',
  reads: './read-store.js',
  http: './http.js',
  ticks: './ticks.js',
  kernel: './kernel.js',
  turns: './turns.js',
  scratch: './scratch.js',
  repository: './repository.js',
  'repository-floor': './repository-floor.js',
  mcp: './mcp.js',
  rebuild: './rebuild.js',
  carry: './carry.js',
  soak: './soak.js',
  fronts: './fronts.js',
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const names = args.filter((a) => !a.startsWith('-'));
  const chosen = names.length ? names : Object.keys(benches);
  for (const name of chosen) {
    const file = benches[name];
    if (!file) {
      console.error(`unknown bench ${name}; known: ${Object.keys(benches).join(', ')}`);
      process.exitCode = 2;
      return;
    }
    console.log(`\n=== bench ${name} ===`);
    const mod = (await import(file)) as { main(args: string[]): Promise<void> };
    await mod.main(args.filter((a) => a.startsWith('-')));
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
