/**
 * What the kernel is asked to decide: the ten command kinds. Each has its decider (a turn's in
 * turn/, the others in deciders/); `decide` (decide.ts) dispatches on `kind`.
 */
import type { TurnBody } from '../../contract/bodies.js';
import type { Module } from '../program.js';
import type { Entry } from './entry.js';
import type { TownLayout } from './genesis.js';
import type { World } from './world.js';

/**
 * A guest's turn: who casts what on which card, and the request as the turn route's body codec
 * gives it (`TurnBody`, spec 4.2: intent, if, try, and one of fields, spell, argument).
 *
 * Those three are looser here than the codec makes them, on purpose: the kernel is also handed
 * turns no codec has seen (a REPL entry run as a turn, the card command line, the tests and
 * fuzzers), and it checks them itself: two of them given, a spell that is no text or an argument
 * that is no typed data is refused `typeMismatch` with a receipt. Its input is checked, not trusted.
 */
export type TurnCommand = { kind: 'turn'; principal: string; object: string; method: string } & Omit<TurnBody, 'fields' | 'spell' | 'argument'> & {
    fields?: unknown;
    spell?: string;
    argument?: unknown;
  };

/** Runs up to `max` queued sends (oldest first), each an entry of its own. */
export interface DeliverCommand {
  kind: 'deliver';
  max?: number;
}

/** The host's consequence of a guest's identity event: an avatar in the entrance room. */
export interface ArriveCommand {
  kind: 'arrive';
  principal: string;
  name: string;
}

export interface GenesisCommand {
  kind: 'genesis';
  name: string;
  host: string;
  opener: string;
  layout?: TownLayout;
}

/** An empty world with the sealed library (a scratch world without `from`). */
export interface EmptyCommand {
  kind: 'empty';
  name: string;
  host: string;
  opener: string;
}

/**
 * A fork of `source` as it stands (the caller replays to the height wanted, or gives the world as
 * it stood there: history.ts). `through`: the entry names `source` (its name and height) and
 * carries nothing, the fork reading through to it; otherwise it carries what `forker` may view.
 */
export interface ForkCommand {
  kind: 'fork';
  source: World;
  forker: string;
  name: string;
  through?: boolean;
}

export interface CreateCommand {
  kind: 'create';
  principal: string;
  intent: string;
  object: string;
  source?: string;
  modules?: Module[];
  entry: string;
  law?: string;
  seed?: unknown;
}

export interface ReplCommand {
  kind: 'repl';
  principal: string;
  intent: string;
  source?: string;
  modules?: Module[];
  entry: string;
  arguments?: unknown[];
  fields?: unknown;
  argument?: unknown;
  /** Default `repl`. */
  object?: string;
  /**
   * Lower budgets for this run (the earlier catalogue shape's `limits`, spec 9); each at most
   * the kernel's own.
   */
  limits?: { ticks?: number; heap?: number; bytes?: number };
}

/** Keeps a scratch receipt (its whole entry) in this world under the caller's name. */
export interface CiteCommand {
  kind: 'cite';
  principal: string;
  /** Default `cite:<cid>`. */
  intent?: string;
  /** The scratch world's name and the entry cited, as its journal holds it. */
  world: string;
  entry: Entry;
}

export interface CheckCommand {
  kind: 'check';
  source?: string;
  modules?: Module[];
  entry?: string;
}

export type Command =
  | TurnCommand
  | DeliverCommand
  | ArriveCommand
  | GenesisCommand
  | EmptyCommand
  | ForkCommand
  | CreateCommand
  | ReplCommand
  | CheckCommand
  | CiteCommand;
