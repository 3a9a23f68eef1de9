/**
 * The write side of the hosted accounts' repositories: one command handler for createRecord,
 * putRecord, deleteRecord and applyWrites. It folds the account's stream (`hosted-<name>`,
 * kept folded between calls and read on from where it stood), plans the writes with the decider
 * (src/commands/hosted-repo.ts), signs the commit of the tree they make with the town's commit
 * key, decides with that commit and appends it at the revision folded; a lost race is planned
 * and signed again on what won. Refusals are the AT Protocol errors of spec 7.3.
 */
import type { Keypair } from '@atproto/crypto';
import type { Clock } from '../../contract/clock.js';
import { XrpcFailure } from '../../contract/xrpc-failure.js';
import { type HostedState, type HostedWrite, hostedDecider, planWrites } from '../../commands/hosted-repo.js';
import { decodeHostedEvent, type HostedCommit, type HostedEvent, type HostedOp, hostedStream } from '../../events/hosted.js';
import { runCommand } from '../../commands/command-runner.js';
import type { EventStore, ExpectedRevision } from '../../stores/event-store.js';
import type { HostedAccount } from './accounts.js';
import { applyOps, type HostedTrees, signTree } from './tree.js';

export interface HostedWritesDeps {
  events: EventStore;
  clock: Clock;
  /** The town's commit key (undefined on a box that does not sign: no hosted repositories). */
  signer: Keypair | undefined;
  trees: HostedTrees;
}

/** What a write did: the operations committed (none: nothing changed), the commit and its `$all` position. */
export interface Written {
  ops: HostedOp[];
  /** The record key of each write, in order. */
  keys: string[];
  commit?: HostedCommit;
  position?: bigint;
}

/** Accounts kept folded; past it the cache starts over (costs folds only). */
const statesKept = 10_000;

export class HostedWrites {
  private readonly folded = new Map<string, { revision: bigint; state: HostedState }>();

  constructor(private readonly deps: HostedWritesDeps) {}

  /** The account's repository as its stream stands, and the revision to append at. */
  async state(name: string): Promise<{ state: HostedState; expected: ExpectedRevision }> {
    const stream = hostedStream(name);
    const revision = await this.deps.events.streamRevision(stream);
    if (revision === undefined) return { state: hostedDecider.initialState(), expected: 'noStream' };
    const kept = this.folded.get(stream);
    if (kept?.revision === revision) return { state: kept.state, expected: revision };
    let state = kept?.state ?? hostedDecider.initialState();
    let at = kept?.revision ?? -1n;
    for (const event of await this.deps.events.readStream(stream, { fromRevision: at + 1n })) {
      state = hostedDecider.evolve(state, decodeHostedEvent(event));
      at = event.revision;
    }
    this.keep(stream, at, state);
    return { state, expected: at };
  }

  async write(account: HostedAccount, writes: HostedWrite[], swapCommit?: string): Promise<Written> {
    const signer = this.deps.signer;
    if (!signer) throw new XrpcFailure('RepoNotServed', 'this box has no signing key: it keeps no hosted repositories');
    const stream = hostedStream(account.name);
    return runCommand<HostedState, HostedEvent, Written>(this.deps.events, {
      stream,
      read: () => this.state(account.name),
      decide: async (state) => {
        const command = { type: 'write' as const, did: account.did, writes, now: this.deps.clock(), ...(swapCommit !== undefined ? { swapCommit } : {}) };
        const planned = planWrites(state, command);
        if (!planned.ok) throw new XrpcFailure(planned.reason.error, planned.reason.message);
        if (!planned.plan.ops.length) return { events: [], answer: () => ({ ops: [], keys: planned.plan.keys }) };
        const before = await this.deps.trees.tree(account.did, state.data, async () => state.records);
        const tree = await applyOps(before, planned.plan.ops);
        const commit = await signTree(account.did, tree, planned.plan.rev, signer);
        const decision = hostedDecider.decide(state, { ...command, commit });
        if (!decision.ok) throw new XrpcFailure(decision.reason.error, decision.reason.message);
        return {
          events: decision.events,
          answer: (appended) => {
            this.keep(stream, appended!.nextRevision, decision.events.reduce(hostedDecider.evolve, state));
            this.deps.trees.keep(account.did, commit.data, tree);
            return { ops: planned.plan.ops, keys: planned.plan.keys, commit, position: appended!.position };
          },
        };
      },
    });
  }

  private keep(stream: string, revision: bigint, state: HostedState): void {
    this.folded.delete(stream);
    if (this.folded.size >= statesKept) this.folded.delete(this.folded.keys().next().value!);
    this.folded.set(stream, { revision, state });
  }
}
