/**
 * The decider of a hosted account's repository (spec 4.5, 7.3, 8): the stream `hosted-<name>`
 * holds one `HostedRecordsWritten` event per signed commit. Deciding a write checks what AT
 * Protocol's repository writes check — `swapCommit` against the head, `swapRecord` against the
 * record's CID (null: the key must be free), a create on a free key, at most 256 records (a
 * write to a key the account already holds always fits) — and names the commit's rev and the keys
 * of records created without one (TIDs of the command's clock).
 *
 * The signed commit is an input of the command, made before deciding from `planWrites`'s answer
 * (src/repository/hosted/records.ts): signing and hashing the tree are I/O-free but asynchronous,
 * and a decider is a pure synchronous function. `decide` plans again on the same state, so what
 * was signed and what is appended are the same writes; the rev must be the one planned.
 */
import { TID } from '@atproto/common-web';
import type { Decider, Decision } from '../contract/decider.js';
import { limits } from '../contract/limits.js';
import { hostedWrittenType, type HostedCommit, type HostedEvent, type HostedOp } from '../events/hosted.js';

/** What an account's repository stands at: its records' CIDs by path, and its signed head. */
export interface HostedState {
  /** `<collection>/<rkey>` → the record's CID. */
  records: ReadonlyMap<string, string>;
  commit?: string;
  data?: string;
  rev?: string;
  /** Microseconds of the head's rev (0 before any commit). */
  tick: number;
}

/** One write as asked: the value's CID is worked out before deciding (hashing is asynchronous). */
export type HostedWrite =
  | { action: 'create'; collection: string; rkey?: string; value: unknown; cid: string }
  /** putRecord: the record at the key, whether or not one was there. */
  | { action: 'put'; collection: string; rkey: string; value: unknown; cid: string; swapRecord?: string | null }
  | { action: 'delete'; collection: string; rkey: string; swapRecord?: string | null };

export interface HostedWriteCommand {
  type: 'write';
  did: string;
  writes: HostedWrite[];
  swapCommit?: string;
  /** Milliseconds since the epoch. */
  now: number;
}

/** The command as decided: with the commit signed over what `planWrites` planned. */
export interface HostedSignedCommand extends HostedWriteCommand {
  commit: HostedCommit;
}

export type HostedRefusal = { error: 'InvalidSwap' | 'RecordAlreadyExists' | 'RepoFull' | 'InvalidRequest'; message: string };

/** What a write comes to on a state: the operations (none: nothing changes), the records after, the rev. */
export interface HostedPlan {
  ops: HostedOp[];
  /** The record key of each write, in order (a create without one is given its TID here). */
  keys: string[];
  records: ReadonlyMap<string, string>;
  rev: string;
  tick: number;
}

export const initialHostedState = (): HostedState => ({ records: new Map(), tick: 0 });

const refuse = (error: HostedRefusal['error'], message: string): { ok: false; reason: HostedRefusal } => ({ ok: false, reason: { error, message } });

/** The writes on `state`, or why not. Pure: the rev and new keys come from `now` and the head's rev. */
export function planWrites(state: HostedState, command: HostedWriteCommand): { ok: true; plan: HostedPlan } | { ok: false; reason: HostedRefusal } {
  if (command.swapCommit !== undefined && command.swapCommit !== state.commit) {
    return refuse('InvalidSwap', `the head is ${state.commit ?? 'no commit yet'}, not ${command.swapCommit}`);
  }
  // The rev moves on from the head's even when the clock does not (several writes in a millisecond).
  const tick = Math.max(state.tick + 1, command.now * 1000);
  const records = new Map(state.records);
  const ops: HostedOp[] = [];
  const seen = new Set<string>();
  const keys: string[] = [];
  for (const [i, write] of command.writes.entries()) {
    // A record made without a key is keyed by the commit's time; the write's place tells several apart.
    const rkey = write.rkey ?? TID.fromTime(tick, i % 1024).toString();
    const path = `${write.collection}/${rkey}`;
    if (seen.has(path)) return refuse('InvalidRequest', `${path} is written twice in one call`);
    seen.add(path);
    keys.push(rkey);
    const had = records.get(path);
    if (write.action !== 'create' && write.swapRecord !== undefined && write.swapRecord !== (had ?? null)) {
      return refuse('InvalidSwap', `${path} is ${had ?? 'absent'}, not ${write.swapRecord ?? 'absent'}`);
    }
    if (write.action === 'delete') {
      // Deleting what is not there changes nothing, as on AT Protocol's own servers.
      if (had === undefined) continue;
      records.delete(path);
      ops.push({ action: 'delete', collection: write.collection, rkey });
      continue;
    }
    if (had !== undefined && write.action === 'create') return refuse('RecordAlreadyExists', `${path} exists; putRecord replaces it`);
    records.set(path, write.cid);
    ops.push({ action: had === undefined ? 'create' : 'update', collection: write.collection, rkey, cid: write.cid, value: write.value });
  }
  if (records.size > limits.hostedAccountRequests && records.size > state.records.size) {
    return refuse('RepoFull', `a hosted account holds ${limits.hostedAccountRequests} requests; delete one first`);
  }
  return { ok: true, plan: { ops, keys, records, rev: TID.fromTime(tick, 0).toString(), tick } };
}

export const hostedDecider: Decider<HostedState, HostedSignedCommand, HostedEvent, Decision<HostedEvent, HostedRefusal>> = {
  initialState: initialHostedState,

  decide(state, command) {
    const planned = planWrites(state, command);
    if (!planned.ok) return planned;
    const { plan } = planned;
    if (!plan.ops.length) return { ok: true, events: [] };
    if (command.commit.rev !== plan.rev) return refuse('InvalidRequest', `the commit was signed at rev ${command.commit.rev}, the write is at ${plan.rev}`);
    return { ok: true, events: [{ type: hostedWrittenType, data: { did: command.did, ops: plan.ops, commit: command.commit, at: command.now } }] };
  },

  evolve(state, event) {
    const records = new Map(state.records);
    for (const op of event.data.ops) {
      const path = `${op.collection}/${op.rkey}`;
      if (op.action === 'delete') records.delete(path);
      else records.set(path, op.cid!);
    }
    const { cid, data, rev } = event.data.commit;
    return { records, commit: cid, data, rev, tick: TID.fromStr(rev).timestamp() };
  },
};
