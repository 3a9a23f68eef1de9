/**
 * Readiness: whether this process should be sent traffic. A town is ready
 * when its journal is open and every read model is caught up within a bound:
 *
 * - after a start, not before every projection has folded the journal as it stood when the
 *   process started (a start that replays, or projectors that resume far behind, are not ready);
 * - then, while no projection trails the journal by more than `maxLagSeconds`: a projection's
 *   lag is how long ago the journal's head first stood past the projection's checkpoint (0 when
 *   it has folded the head). Seconds, not positions: a position on EventStoreDB counts bytes of
 *   its log, on the embedded journal events, and neither says how stale a read is;
 * - and while no in-process projector has failed.
 *
 * The head is sampled about once a second (a timer, unref'd) and when asked; a sample is one
 * `headPosition()` of the event store.
 */
export interface ReadinessSources {
  /** The journal's head position (undefined: an empty journal). */
  head(): Promise<bigint | undefined>;
  /** Each read model's checkpoint, by projection name. */
  checkpoints(): Promise<[string, bigint | undefined][]>;
  /** A failure that makes this process unfit to serve (a projector that stopped). */
  failure?(): string | undefined;
  now?: () => number;
}

export interface ReadinessState {
  ready: boolean;
  /** Why not, in words, when not ready. */
  reason?: string;
  head: bigint | undefined;
  projections: { name: string; checkpoint: bigint | undefined; lagSeconds: number }[];
  /** The stores did not answer (nothing is known of the journal or the read models). */
  unanswered?: true;
}

interface Sample {
  at: number;
  head: bigint;
}

export const defaultMaxLagSeconds = 10;

export class Readiness {
  private readonly samples: Sample[] = [];
  private startHead: bigint | undefined | null = null;
  private caughtUp = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;
  private readonly keepMs: number;

  constructor(
    private readonly sources: ReadinessSources,
    readonly maxLagSeconds = defaultMaxLagSeconds,
  ) {
    this.now = sources.now ?? Date.now;
    this.keepMs = Math.max(60_000, maxLagSeconds * 4000);
  }

  /** Samples the head every `everyMs` until stopped. */
  start(everyMs = 1000): this {
    this.timer ??= setInterval(() => void this.state().catch(() => {}), everyMs);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private sample(head: bigint | undefined): void {
    const at = this.now();
    if (this.startHead === null) this.startHead = head;
    if (head === undefined) return;
    const last = this.samples[this.samples.length - 1];
    if (!last || last.head !== head) this.samples.push({ at, head });
    while (this.samples.length > 1 && at - this.samples[0]!.at > this.keepMs) this.samples.shift();
  }

  /** Seconds since the head first stood past `checkpoint` (0 when it has folded the head). */
  private lagSeconds(checkpoint: bigint | undefined, head: bigint | undefined, now: number): number {
    if (head === undefined || (checkpoint !== undefined && checkpoint >= head)) return 0;
    const first = this.samples.find((s) => checkpoint === undefined || s.head > checkpoint);
    return first ? (now - first.at) / 1000 : 0;
  }

  /** Whether ready now; stores that do not answer make it not ready, with their error as the reason. */
  async state(): Promise<ReadinessState> {
    try {
      return await this.look();
    } catch (error) {
      const reason = `the stores did not answer: ${error instanceof Error ? error.message : String(error)}`;
      return { ready: false, reason, head: undefined, projections: [], unanswered: true };
    }
  }

  private async look(): Promise<ReadinessState> {
    const head = await this.sources.head();
    this.sample(head);
    const now = this.now();
    const projections = (await this.sources.checkpoints()).map(([name, checkpoint]) => ({
      name,
      checkpoint,
      lagSeconds: this.lagSeconds(checkpoint, head, now),
    }));
    const failure = this.sources.failure?.();
    if (failure) return { ready: false, reason: failure, head, projections };
    if (!this.caughtUp) {
      const target = this.startHead;
      const behind = projections.filter((p) => target != null && (p.checkpoint === undefined || p.checkpoint < target));
      if (behind.length) {
        return { ready: false, reason: `catching up with the journal after the start: ${behind.map((p) => p.name).join(', ')}`, head, projections };
      }
      this.caughtUp = true;
    }
    const late = projections.filter((p) => p.lagSeconds > this.maxLagSeconds);
    if (late.length) {
      const names = late.map((p) => `${p.name} (${p.lagSeconds.toFixed(1)} s)`).join(', ');
      return { ready: false, reason: `read models behind the journal by more than ${this.maxLagSeconds} s: ${names}`, head, projections };
    }
    return { ready: true, head, projections };
  }
}
