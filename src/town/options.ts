/**
 * What a town is opened with (`openTown`): the settings, and what the tests and the benches
 * change about a town (its clock, its limits, its programs, the disk under it).
 */
import type { Clock } from '../contract/clock.js';
import type { Limiters } from '../contract/rate-limit.js';
import type { Logger } from '../http/app.js';
import type { TownLog } from '../operations/log.js';
import type { Programs } from '../cards/kernel/programs.js';
import type { TownLayout } from '../cards/kernel/genesis.js';
import type { McpLimits } from '../mcp/sessions.js';
import type { JournalIo } from '../stores/embedded/journal.js';
import type { FreeBytes } from '../stores/embedded/disk-guard.js';
import type { Settings } from '../config.js';

/** Turns a guest may start per clock hour on an open town (spec 8: value not shown). */
export const defaultTurnQuota = 240;

export interface TownOptions {
  settings: Settings;
  clock?: Clock;
  /** Origin to put in links and principals when the port is only known after listening. */
  origin?: string;
  logger?: Logger;
  /** The operational log: one line per request, and failures (none: no request lines). */
  log?: TownLog;
  /** Difficulty of arrival proofs (the spec's 18 unless a test needs many proofs fast). */
  arrivalBits?: number;
  /** The front's rate limiters (tests and benches that are not about rate limits lift them). */
  limiters?: Limiters;
  /** Open-town turns per guest per clock hour. */
  turnQuota?: number;
  /** The programs the kernel runs (the sealed library by default; tests add kinds). */
  programs?: Programs;
  /** Genesis layout of a fresh town (the genesis town by default). */
  layout?: TownLayout;
  /** The town's opener (moderation powers); the host itself by default. */
  opener?: string;
  /** Keep world snapshots under the data directory (default true with the embedded store). */
  snapshots?: boolean;
  /** How long a read waits for its projection to show the caller's own turn. */
  readYourWritesMs?: number;
  /**
   * Fold the in-process projections on a thread of their own (default), or on the event loop
   * that answers requests (what programs without library modules need).
   */
  projectorThread?: boolean;
  /** The MCP sessions' limits (tests hold streams for less). */
  mcp?: Partial<McpLimits>;
  /**
   * Run the repository projection (default true). Off, the town serves no repository: for the
   * bench that measures what the projection costs turns.
   */
  repository?: boolean;
  /** How many unexpired service-token ids the town keeps (src/repository/service-auth.ts; tests fill it). */
  serviceTokenCustody?: number;
  /** The embedded journal's file writes (tests make the disk fail through it; test/faults). */
  journalIo?: Partial<JournalIo>;
  /** How the free-space watermark reads the disk's free bytes (tests make a disk fill and empty). */
  diskFree?: FreeBytes;
}
