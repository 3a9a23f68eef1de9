/**
 * `npm run town -- <command> [args]`: the operator's command line. Each command family lives in
 * its own module and is listed here; the store is the one the town runs on (TOWN_DATA, or
 * EVENTSTORE_URL).
 */
import { settingsFromEnv } from '../config.js';
import { openEventStore } from '../stores/open-event-store.js';
import { operatorCommands, operatorUsage, runOperator } from './operator.js';

interface Family {
  commands: Set<string>;
  usage: string[];
  run(command: string, args: string[], io: Parameters<typeof runOperator>[2]): Promise<number>;
}

/** Command families. A later `card` family (cards as files) plugs in here beside the operator's. */
const families: Family[] = [
  { commands: operatorCommands, usage: operatorUsage, run: runOperator },
];

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  const family = families.find((f) => command !== undefined && f.commands.has(command));
  if (!family) {
    process.stderr.write(`${command === undefined ? 'no command given' : `unknown command ${command}`}\nusage: npm run town -- <command>\n`);
    for (const f of families) for (const line of f.usage) process.stderr.write(`  ${line}\n`);
    return 2;
  }
  const settings = settingsFromEnv();
  const store = await openEventStore({ url: settings.eventStoreUrl, dataDir: settings.dataDir });
  try {
    return await family.run(command!, args, {
      store,
      clock: Date.now,
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
    });
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
