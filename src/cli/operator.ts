/**
 * The operator's commands (`npm run town -- <command>`): invitations and the town's mode.
 *
 *   invite [--name <guest>] [--expires <7d|12h|30m>]   print a new code (shown this once)
 *   revoke-invite <code | hash prefix>                 revoke an unspent code
 *   invites                                            list codes: hash prefix, guest, state, expiry
 *   open | invited                                     open the town to arrivals, or close it
 *   quiet <guest> until <clock> [-- <reading>]         the opener's moderation power (the running town casts it)
 *   carry [--town-stopped]                             a new journal epoch (cli/carry.ts)
 */
import { isGuestName } from '../contract/names.js';
import { defaultInvitationLifetimeMs, issueInvitation, listInvitations, OperatorError, parseDuration, revokeInvitation } from '../identity/operator.js';
import { setTownOpen } from '../identity/town.js';
import type { Clock } from '../contract/clock.js';
import type { EventStore } from '../stores/event-store.js';
import type { Receipt } from '../cards/kernel/receipt.js';
import type { QuietOrder } from '../commands/opener.js';
import { carryUsage, runCarry, type CarryIo } from './carry.js';

export interface OperatorIo {
  store: EventStore;
  clock: Clock;
  out(line: string): void;
  err(line: string): void;
  /** The opener's `quiet`, cast by the running town (absent when the command runs without it). */
  quiet?(order: QuietOrder): Promise<Receipt>;
  /** The carry: the running town's own, or one on the stopped town's store (absent: refused). */
  carry?: Pick<CarryIo, 'carry' | 'archiveDir'>;
}

export const operatorUsage = [
  'invite [--name <guest>] [--expires <duration: 7d, 12h, 30m>]   make an invitation code (printed once)',
  'revoke-invite <code | hash prefix>                             revoke an invitation not yet spent',
  "quiet <guest> until <clock> [-- <reading>]                     quiet a guest until then (the opener's power; the town must be running)",
  'invites                                                        list invitations',
  'open                                                           open the town (arrivals by proof of work)',
  'invited                                                        invitations only',
  carryUsage,
];

export const operatorCommands = new Set(['invite', 'revoke-invite', 'invites', 'open', 'invited', 'quiet', 'carry']);

/** Runs one operator command; answers the process exit code. */
export async function runOperator(command: string, args: string[], io: OperatorIo): Promise<number> {
  try {
    switch (command) {
      case 'invite':
        return await invite(args, io);
      case 'revoke-invite': {
        if (args.length !== 1) return usage(io, 'revoke-invite takes one code or hash prefix');
        const hash = await revokeInvitation(io.store, io.clock, args[0]!);
        io.out(`revoked ${hash.slice(0, 12)}`);
        return 0;
      }
      case 'invites':
        return await invites(io);
      case 'open':
      case 'invited': {
        const changed = await setTownOpen(io.store, io.clock, command === 'open');
        io.out(`the town is ${command === 'open' ? 'open' : 'invited-only'}${changed ? '' : ' (it was already)'}`);
        return 0;
      }
      case 'quiet':
        return await quiet(args, io);
      case 'carry':
        if (!io.carry) {
          io.err('carry refused: this store is not a town this command may carry');
          return 1;
        }
        return await runCarry(args, { out: io.out, err: io.err, ...io.carry });
      default:
        return usage(io, `unknown command ${command}`);
    }
  } catch (error) {
    if (error instanceof OperatorError) {
      io.err(error.message);
      return 1;
    }
    throw error;
  }
}

async function invite(args: string[], io: OperatorIo): Promise<number> {
  let guest: string | null = null;
  let lifetimeMs = defaultInvitationLifetimeMs;
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    const value = args[i + 1];
    if (flag === '--name' && value !== undefined) {
      if (!isGuestName(value)) return usage(io, `${value} is not a guest name ([a-z][a-z0-9-]{0,31}, ending in a letter or digit)`);
      guest = value;
    } else if (flag === '--expires' && value !== undefined) {
      const parsed = parseDuration(value);
      if (parsed === undefined) return usage(io, `${value} is not a duration such as 7d, 12h or 30m`);
      lifetimeMs = parsed;
    } else {
      return usage(io, `invite does not take ${flag}${value === undefined ? ' without a value' : ''}`);
    }
    i++;
  }
  const issued = await issueInvitation(io.store, io.clock, { guest, lifetimeMs });
  io.out(issued.code);
  io.err(
    `hash ${issued.codeHash.slice(0, 12)}, ${guest ? `for ${guest}` : 'open (names no one)'}, expires ${new Date(issued.expires).toISOString()}; the code is not shown again`,
  );
  return 0;
}

async function invites(io: OperatorIo): Promise<number> {
  const rows = await listInvitations(io.store, io.clock);
  if (rows.length === 0) {
    io.out('no invitations');
    return 0;
  }
  const table = [
    ['hash', 'guest', 'state', 'expires'],
    ...rows.map((row) => [
      row.codeHash.slice(0, 12),
      row.guest ?? '(open)',
      row.spentBy ? `${row.status} by ${row.spentBy}` : row.status,
      new Date(row.expires).toISOString(),
    ]),
  ];
  // Each column as wide as its widest cell, so the columns line up whatever the states say.
  const widths = table[0]!.map((_, i) => Math.max(...table.map((cells) => cells[i]!.length)));
  for (const cells of table) io.out(cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
  return 0;
}

/** `quiet <guest> until <clock> [-- <reading>]`, the spell's own spelling. */
async function quiet(args: string[], io: OperatorIo): Promise<number> {
  const [guest, word, until, dashes, ...reading] = args;
  if (guest === undefined || word !== 'until' || until === undefined || (dashes !== undefined && (dashes !== '--' || !reading.length))) {
    return usage(io, 'quiet takes <guest> until <clock: ms or ISO time with its zone> [-- <reading>]');
  }
  if (!io.quiet) {
    io.err('quiet is cast by the running town, as its opener: start it (npm start) and run this again');
    return 1;
  }
  const r = await io.quiet({ guest, until, ...(reading.length ? { reading: reading.join(' ') } : {}) });
  if (r.status === 'refused') {
    io.err(`refused ${r.class}${r.clause ? ` ${r.clause}` : ''}: ${r.reason ?? r.line}`);
    return 1;
  }
  io.out(r.revealed.find((x) => x.includes(' is quiet until ')) ?? r.line);
  return 0;
}

function usage(io: OperatorIo, problem: string): number {
  io.err(problem);
  io.err('usage: npm run town -- <command>');
  for (const line of operatorUsage) io.err(`  ${line}`);
  return 2;
}
