/** The kernel's knobs: budgets, allowances, capacities. Part of what a decision depends on. */
import type { Budget } from '../program.js';

export interface Allowances {
  /** Longest chain of sends from one guest's turn. */
  depth: number;
  /** Ticks a run of sends may spend in all. */
  work: number;
  /** Bytes a run of sends may write in all. */
  storage: number;
}

export interface KernelOptions {
  /** What one turn (all the acts of a plan together) may spend. */
  budget: Budget;
  allowances: Allowances;
  /** Open town: turns a principal may start per clock hour (absent: no quota). */
  turnQuota?: number;
  /** Acts in one plan. */
  maxActs: number;
  /** Cards in a world and sends waiting in its queue. */
  capacity: { cards: number; pending: number };
  /** A card whose owner has not acted for this long (ms) may be adopted. */
  abandonAfter: number;
  /** Bytes of all the modules of one package. */
  packageBytes: number;
}

export const defaultOptions: KernelOptions = {
  budget: { ticks: 1_000_000, heap: 1_000_000, bytes: 65_536 },
  allowances: { depth: 8, work: 4_000_000, storage: 262_144 },
  maxActs: 8,
  capacity: { cards: 1_000_000, pending: 10_000 },
  abandonAfter: 30 * 24 * 3_600_000,
  packageBytes: 1_048_576,
};
