/**
 * `npm run town -- <command> [args]`: the operator's command line. Each command family lives in
 * its own module and is listed here; the store is the one the town runs on (TOWN_DATA, or
 * EVENTSTORE_URL).
 */
import { settingsFromEnv } from '../config.js';
import { limits } from '../contract/limits.js';
import type { OperatorIo } from './operator.js';
import { cardCommands, cardUsage, runCard } from './card.js';

interface Family {
  commands: Set<string>;
  usage: string[];
  /** Families that work on files alone (cards) open no store: they run with no town at all. */
  offline?: (command: string, args: string[]) => Promise<number>;
  run?(command: string, args: string[], io: OperatorIo): Promise<number>;
}

/** `npm run` starts scripts in the package's folder; paths on the command line are the caller's. */
const callerCwd = () => (process.env.npm_lifecycle_event === 'town' && process.env.INIT_CWD) || process.cwd();

/** Standard input, kept up to one byte over the module limit (the kernel refuses what is over). */
function readStdin(): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    process.stdin.on('data', (c: Buffer) => {
      if (kept > limits.moduleBytes) return;
      chunks.push(c);
      kept += c.length;
    });
    process.stdin.on('end', () => resolve(Buffer.concat(chunks)));
    process.stdin.on('error', reject);
  });
}

/**
 * A line writer for stdout or stderr. A reader that goes away (`card … | head -1`) ends the
 * output, not the command: the pipe's EPIPE is taken as "no one reads on" and later lines are
 * dropped, so no stack trace is printed and the command ends with its own exit code.
 */
function lineWriter(stream: NodeJS.WriteStream): (line: string) => void {
  let gone = false;
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    gone = true;
  });
  return (line) => {
    if (!gone) stream.write(`${line}\n`);
  };
}

const out = lineWriter(process.stdout);
const err = lineWriter(process.stderr);

/** Cards as files: offline, no store, no town. */
const cardFamily: Family = {
  commands: cardCommands,
  usage: cardUsage,
  offline: (command, args) =>
    runCard(command, args, {
      cwd: callerCwd(),
      readStdin,
      clock: Date.now,
      out,
      err,
    }),
};

/**
 * Command families: cards as files, and the operator's (on the town's store). The operator's
 * modules are loaded only when asked for: they bring the store clients, which are heavy, and a
 * card author checking a file should not wait for them.
 */
async function families(command: string | undefined): Promise<Family[]> {
  if (command !== undefined && cardCommands.has(command)) return [cardFamily];
  const { operatorCommands, operatorUsage, runOperator } = await import('./operator.js');
  const { archiveCommands, archiveUsage } = await import('./archive-commands.js');
  return [
    { commands: operatorCommands, usage: operatorUsage, run: runOperator },
    {
      commands: archiveCommands,
      usage: archiveUsage,
      offline: async (command, args) => (await import('./archive.js')).runArchive(command, args, callerCwd()),
    },
    cardFamily,
  ];
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  const known = await families(command);
  const family = known.find((f) => command !== undefined && f.commands.has(command));
  if (!family) {
    err(`${command === undefined ? 'no command given' : `unknown command ${command}`}\nusage: npm run town -- <command>`);
    for (const f of known) for (const line of f.usage) err(`  ${line}`);
    return 2;
  }
  if (family.offline) return family.offline(command!, args);
  const settings = settingsFromEnv();
  const io = { out, err };
  if (!settings.eventStoreUrl) {
    // A running town owns its embedded journal: ask it to run the command.
    const { callControl } = await import('./control.js');
    const code = await callControl(settings.dataDir, command!, args, io);
    if (code !== undefined) return code;
  }
  if (command === 'carry' && settings.eventStoreUrl && !args.includes('--town-stopped')) {
    // No control socket on EventStoreDB: a town running on it would go on journaling into the
    // old epoch after this carry, and those turns would be in no epoch the town reads again.
    err('carry refused: on EventStoreDB the town must be stopped first (nothing here can tell); stop it and run carry --town-stopped');
    return 1;
  }
  const { openEventStore } = await import('../stores/open-event-store.js');
  const store = await openEventStore({ url: settings.eventStoreUrl, dataDir: settings.dataDir, maxAppendSize: settings.maxAppendSize });
  try {
    const { carry, archiveDirOf } = await import('../commands/carry.js');
    const { TOWN_WORLD } = await import('../events/world.js');
    const archiveDir = archiveDirOf(settings.dataDir);
    const carrying = { archiveDir, carry: () => carry({ events: store, world: TOWN_WORLD, archiveDir, clock: Date.now }) };
    return await family.run!(command!, args, { store, clock: Date.now, carry: carrying, ...io });
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    err(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  },
);
