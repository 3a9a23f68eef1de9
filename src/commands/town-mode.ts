/**
 * Deciders of the town's own settings: whether it is open (`town-config`) and whether a fresh
 * town has made its first invitation (`town-founding`).
 */
import type { Decider, Decision } from '../contract/decider.js';
import type { TownConfigEvent, TownFoundingEvent } from '../events/identity.js';

/** `open` is undefined until someone sets it; the town is then invited-only. */
export interface TownModeState {
  open: boolean | undefined;
}

export const initialTownMode: TownModeState = { open: undefined };

export function evolveTownMode(_state: TownModeState, event: TownConfigEvent): TownModeState {
  return { open: event.data.open };
}

export function isOpen(state: TownModeState): boolean {
  return state.open === true;
}

export type TownModeCommand = { type: 'setMode'; open: boolean; now: number };

/** Setting the mode the town already has records nothing; it is never refused. */
export function decideTownMode(state: TownModeState, command: TownModeCommand): Decision<TownConfigEvent, never> {
  if (isOpen(state) === command.open) return { ok: true, events: [] };
  return { ok: true, events: [{ type: 'TownModeSet', data: { open: command.open, at: command.now } }] };
}

export const townModeDecider: Decider<TownModeState, TownModeCommand, TownConfigEvent> = {
  decide: decideTownMode,
  evolve: evolveTownMode,
  initialState: () => initialTownMode,
};

export type FoundingState = { kind: 'unfounded' } | { kind: 'founded'; invitationHash: string; at: number };

export const initialFounding: FoundingState = { kind: 'unfounded' };

export function evolveFounding(_state: FoundingState, event: TownFoundingEvent): FoundingState {
  return { kind: 'founded', invitationHash: event.data.invitationHash, at: event.data.at };
}

export type FoundingCommand = { type: 'found'; invitationHash: string; now: number };

/** Only the first front to found the town makes the first invitation (a later one records nothing). */
export function decideFounding(state: FoundingState, command: FoundingCommand): Decision<TownFoundingEvent, never> {
  if (state.kind === 'founded') return { ok: true, events: [] };
  return { ok: true, events: [{ type: 'TownFounded', data: { invitationHash: command.invitationHash, at: command.now } }] };
}

export const foundingDecider: Decider<FoundingState, FoundingCommand, TownFoundingEvent> = {
  decide: decideFounding,
  evolve: evolveFounding,
  initialState: () => initialFounding,
};
