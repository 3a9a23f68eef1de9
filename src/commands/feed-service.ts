/**
 * The write side of the feed: keeps the feed's folded state from its stream and decides posts and
 * answers against it, appending at the expected revision. A lost race (another front appended
 * first) reads what was added and decides again, so the quota and "one answer per post" hold
 * across fronts. Commands of one process are taken one at a time, in order.
 */
import type { Clock } from '../contract/clock.js';
import { limits } from '../contract/limits.js';
import { TownError } from '../contract/town-error.js';
import { decodeFeedEvent, type FeedAnswered, type FeedPosted, feedStream, postKey } from '../events/feed.js';
import { runCommand } from './command-runner.js';
import type { EventStore } from '../stores/event-store.js';
import { type Author, decideFeed, evolveFeed, type FeedCommand, type FeedRefusal, type FeedState, feedLeft, initialFeed } from './feed.js';

export interface Appended<E> {
  event: E;
  /** `$all` position of the event (what read-your-writes waits for). */
  position: bigint;
}

export class FeedService {
  private state = initialFeed();
  /** Revision of the last event folded; undefined while the stream is absent. */
  private revision: bigint | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly events: EventStore,
    private readonly clock: Clock,
    private readonly host: string,
    readonly quota: number = limits.feedQuotaPerHour,
  ) {}

  /** Posts a guest's text, at the top or under `replyTo` (a post URI of this feed). */
  post(author: Author, text: string, replyTo?: string): Promise<Appended<FeedPosted>> {
    return this.serial(async () => {
      const parent = replyTo === undefined ? undefined : postKey(this.host, replyTo);
      if (replyTo !== undefined && parent === undefined) throw refusal({ reason: 'noSuchPost' }, replyTo);
      const at = this.clock();
      const done = await this.decide(() => ({ kind: 'post', author, text, at, quota: this.quota, ...(parent ? { replyTo: parent } : {}) }), replyTo);
      return done as Appended<FeedPosted>;
    });
  }

  /** The town's answer under a post; undefined when the post is answered already (or not one the town answers). */
  answer(to: string, text: string, receipt?: { slug: string; cid: string; height: number }): Promise<Appended<FeedAnswered> | undefined> {
    return this.serial(async () => {
      const at = this.clock();
      return (await this.decide(() => ({ kind: 'answer', to, text, at, ...(receipt ? { receipt } : {}) }))) as Appended<FeedAnswered> | undefined;
    });
  }

  /** Posts the guest may still make this clock hour (for `me`). */
  left(principal: string): Promise<{ limit: number; remaining: number; next: string }> {
    return this.serial(async () => {
      await this.catchUp();
      const { remaining, next } = feedLeft(this.state, principal, this.clock(), this.quota);
      return { limit: this.quota, remaining, next: new Date(next).toISOString() };
    });
  }

  /** Top-level posts the town has not answered yet, oldest first. */
  unanswered(): Promise<FeedPosted['data'][]> {
    return this.serial(async () => {
      await this.catchUp();
      return [...this.state.waiting.values()];
    });
  }

  private async decide(command: () => FeedCommand, replyTo?: string): Promise<Appended<FeedEvent> | undefined> {
    return runCommand<FeedState, FeedEvent, Appended<FeedEvent> | undefined>(this.events, {
      stream: feedStream,
      // the feed's state is kept folded here: read on from where it stood
      read: async () => {
        await this.catchUp();
        return { state: this.state, expected: this.revision ?? 'noStream' };
      },
      decide: (state) => {
        const decision = decideFeed(state, command());
        if (!decision.ok) throw refusal(decision.reason, replyTo);
        const [event] = decision.events;
        if (!event) return { events: [], answer: () => undefined };
        return {
          events: [event],
          answer: (appended) => {
            this.revision = appended!.nextRevision;
            evolveFeed(this.state, event);
            return { event, position: appended!.position };
          },
        };
      },
    });
  }

  /** Folds what other writers appended since the last read. */
  private async catchUp(): Promise<void> {
    const from = this.revision === undefined ? 0n : this.revision + 1n;
    for (const recorded of await this.events.readStream(feedStream, { fromRevision: from })) {
      evolveFeed(this.state, decodeFeedEvent(recorded));
      this.revision = recorded.revision;
    }
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => {});
    return run;
  }
}

type FeedEvent = FeedPosted | FeedAnswered;

function refusal(r: FeedRefusal, replyTo: string | undefined): TownError {
  if (r.reason === 'quota') {
    const seconds = Math.max(1, Math.ceil(r.retryAfterMs / 1000));
    return new TownError('rateLimited', `over the feed quota: ${r.quota} posts an hour for each resident; retry after ${seconds} s`, {
      headers: { 'Retry-After': String(seconds) },
    });
  }
  return new TownError('hostRequest', `reply_to names no post of this feed: ${JSON.stringify((replyTo ?? '').slice(0, 200))}`, {
    hint: 'reply_to is the uri of a post, as GET /AGENTS.md/feed shows it',
    hintHref: '/AGENTS.md/feed',
  });
}
