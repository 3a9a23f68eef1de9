/**
 * Decider of a guest's scratch worlds (`scratch-<guest>`). A world is open from ScratchOpened
 * until ScratchExpired, or ScratchClosed when its guest closes it; it expires six hours of
 * home-world clock after the guest's last turn in it (spec 4.3, 8). Each command carries the clock and, per open world, the clock of its latest
 * entry (read from that world's journal), so expiry is decided from the journal: the first
 * command to find a world past its time records its expiry, and every front and replay agrees.
 *
 * A guest has at most two worlds open; opening a third is refused, naming the oldest. A guest may
 * close a world of its own at any time (ScratchClosed), which frees its slot at once.
 */
import type { Decider, Decision } from '../contract/decider.js';
import { limits } from '../contract/limits.js';
import type { ScratchClosed, ScratchEvent, ScratchExpired, ScratchOpened } from '../events/scratch.js';
import { scratchWorldId } from '../events/scratch.js';

export interface OpenWorld {
  name: string;
  world: string;
  openedAt: number;
  from?: { world: string; height: number };
}

export interface ScratchState {
  open: Map<string, OpenWorld>;
  /** Worlds ever opened per name: the next world of a name is the n+1-th. */
  opened: Map<string, number>;
}

export const initialScratch = (): ScratchState => ({ open: new Map(), opened: new Map() });

/** Per open world, the clock of its latest entry (its opening when nothing happened since). */
export type LastTurns = ReadonlyMap<string, number>;

export type ScratchCommand =
  | { kind: 'open'; guest: string; name: string; from?: { world: string; height: number }; now: number; lastTurns: LastTurns }
  | { kind: 'expire'; now: number; lastTurns: LastTurns }
  /** The guest closes one of its open worlds: it ends now, and its slot is free at once. */
  | { kind: 'close'; name: string; now: number; lastTurns: LastTurns };

export type ScratchRefusal =
  | { reason: 'full'; oldest: string; expires: number }
  | { reason: 'alreadyOpen'; world: string }
  | { reason: 'notOpen'; name: string };

export type ScratchDecision = Decision<ScratchEvent, ScratchRefusal>;

const lifetimeMs = limits.scratchLifetimeSeconds * 1000;

export const expiresAt = (w: OpenWorld, lastTurns: LastTurns): number => (lastTurns.get(w.world) ?? w.openedAt) + lifetimeMs;

function expiries(state: ScratchState, now: number, lastTurns: LastTurns): ScratchExpired[] {
  const out: ScratchExpired[] = [];
  for (const w of state.open.values()) {
    const lastTurn = lastTurns.get(w.world) ?? w.openedAt;
    if (lastTurn + lifetimeMs <= now) out.push({ type: 'ScratchExpired', data: { name: w.name, world: w.world, at: now, lastTurn } });
  }
  return out;
}

export function decideScratch(state: ScratchState, command: ScratchCommand): ScratchDecision {
  const expired = expiries(state, command.now, command.lastTurns);
  if (command.kind === 'expire') return { ok: true, events: expired };
  const gone = new Set(expired.map((e) => e.data.name));
  const still = [...state.open.values()].filter((w) => !gone.has(w.name));
  if (command.kind === 'close') {
    // A world past its time has expired already: there is nothing left to close.
    const w = still.find((x) => x.name === command.name);
    if (!w) return { ok: false, reason: { reason: 'notOpen', name: command.name } };
    const closed: ScratchClosed = { type: 'ScratchClosed', data: { name: w.name, world: w.world, at: command.now } };
    return { ok: true, events: [...expired, closed] };
  }
  const same = still.find((w) => w.name === command.name);
  if (same) return { ok: false, reason: { reason: 'alreadyOpen', world: same.world } };
  if (still.length >= limits.scratchWorlds) {
    // The oldest is the one whose time runs out first: the least recently used.
    const oldest = still.reduce((a, b) => (expiresAt(a, command.lastTurns) <= expiresAt(b, command.lastTurns) ? a : b));
    return { ok: false, reason: { reason: 'full', oldest: oldest.name, expires: expiresAt(oldest, command.lastTurns) } };
  }
  const n = (state.opened.get(command.name) ?? 0) + 1;
  const opened: ScratchOpened = {
    type: 'ScratchOpened',
    data: { name: command.name, world: scratchWorldId(command.guest, command.name, n), at: command.now, ...(command.from ? { from: command.from } : {}) },
  };
  return { ok: true, events: [...expired, opened] };
}

export function evolveScratch(state: ScratchState, event: ScratchEvent): ScratchState {
  const d = event.data;
  if (event.type === 'ScratchOpened') {
    state.open.set(d.name, { name: d.name, world: d.world, openedAt: d.at, ...(event.data.from ? { from: event.data.from } : {}) });
    state.opened.set(d.name, (state.opened.get(d.name) ?? 0) + 1);
  } else if (state.open.get(d.name)?.world === d.world) {
    // ScratchExpired or ScratchClosed: the world ends either way.
    state.open.delete(d.name);
  }
  return state;
}

/** A guest's scratch worlds in the one Decider shape. */
export const scratchDecider: Decider<ScratchState, ScratchCommand, ScratchEvent, ScratchDecision> = {
  decide: decideScratch,
  evolve: evolveScratch,
  initialState: initialScratch,
};
