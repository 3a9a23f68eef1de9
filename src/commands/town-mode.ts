/**
 * Deciders of the town's own settings: whether it is open (`town-config`) and whether a fresh
 * town has made its first invitation (`town-founding`).
 */
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

/** Setting the mode the town already has records nothing. */
export function decideTownMode(state: TownModeState, command: { type: 'setMode'; open: boolean; now: number }): TownConfigEvent[] {
  if (isOpen(state) === command.open) return [];
  return [{ type: 'TownModeSet', data: { open: command.open, at: command.now } }];
}

export type FoundingState = { kind: 'unfounded' } | { kind: 'founded'; invitationHash: string; at: number };

export const initialFounding: FoundingState = { kind: 'unfounded' };

export function evolveFounding(_state: FoundingState, event: TownFoundingEvent): FoundingState {
  return { kind: 'founded', invitationHash: event.data.invitationHash, at: event.data.at };
}

/** Only the first front to found the town makes the first invitation. */
export function decideFounding(state: FoundingState, command: { type: 'found'; invitationHash: string; now: number }): TownFoundingEvent[] {
  if (state.kind === 'founded') return [];
  return [{ type: 'TownFounded', data: { invitationHash: command.invitationHash, at: command.now } }];
}
