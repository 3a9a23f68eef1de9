/**
 * The town answers its feed. Each guest's top-level post is said to the town: the reactor casts
 * it to the town card's `receive` as the author's turn, under an intent derived from the post
 * (`feed:<rkey>`), and posts the turn's result under it as the town's answer with the receipt.
 *
 * Both steps are idempotent, so the reactor needs no transaction and may run on several fronts:
 * a second cast of the same intent repeats the first receipt (the kernel), and a second answer
 * to the same post decides nothing (the feed's decider). Killed between the turn and the answer,
 * it casts again after a restart, gets the same receipt, and answers once.
 *
 * It follows `$all` (only `feed-` streams) from a checkpoint kept in the read store; the
 * checkpoint is a shortcut for the next start, never what makes an answer unique.
 */
import { showData } from '../cards/typed-text.js';
import { decodeFeedEvent, type FeedPosted, postUri } from '../events/feed.js';
import { pollAll } from '../projections/projector.js';
import { reactorCheckpoint } from './reactor-checkpoint.js';
import type { EventStore, RecordedEvent, SubscribeHandlers, Subscription } from '../stores/event-store.js';
import type { ReadStore } from '../stores/read-store.js';
import type { FeedService } from './feed-service.js';
import { castTurn } from './turn.js';
import type { Decided, WorldService } from './world-service.js';

export const feedAnswersCheckpoint = 'feed-answers';
/** The card every top-level post is said to, and its spell that hears prose. */
export const townCard = { object: 'town', method: 'receive' } as const;

export interface FeedReactor {
  close(): Promise<void>;
  /** Resolves once the posts already in the journal at start were answered. */
  caughtUp: Promise<void>;
}

/** The intent a post is cast under: one per post, so it is never cast twice. */
export const feedIntent = (rkey: string) => `feed:${rkey}`;

function nameOf(principal: string): string {
  return principal.slice(principal.lastIndexOf(':') + 1);
}

/** The first half of answering: the post said to the town as its author's turn. Safe to repeat. */
export function castPost(o: { world: WorldService; host: string }, post: FeedPosted['data']): Promise<Decided> {
  const author = { principal: post.author.principal, name: nameOf(post.author.principal) };
  return castTurn(o.world, author, townCard.object, townCard.method, {
    intent: feedIntent(post.rkey),
    fields: { text: post.text, post: postUri(o.host, post.rkey) },
  });
}

/** Casts one post to the town and answers it; safe to repeat. */
export async function answerPost(o: { world: WorldService; feed: FeedService; host: string }, post: FeedPosted['data']): Promise<void> {
  const outcome = (await castPost(o, post)).outcome;
  const receipt = 'receipt' in outcome ? outcome.receipt : undefined;
  let text: string;
  if (receipt?.status === 'done') text = receipt.result?.tag === 'label' ? receipt.result.value : receipt.result ? showData(receipt.result) : receipt.line;
  else if (receipt) text = receipt.line;
  else text = outcome.kind === 'rejected' ? outcome.error.message : 'the town could not hear this post';
  const placed =
    receipt?.slug !== undefined && receipt.cid !== undefined && receipt.height !== undefined
      ? { slug: receipt.slug, cid: receipt.cid, height: receipt.height }
      : undefined;
  await o.feed.answer(post.rkey, text, placed);
}

export async function startFeedReactor(opts: {
  events: EventStore;
  reads: ReadStore;
  world: WorldService;
  feed: FeedService;
  host: string;
  pollMs?: number;
  onError?(error: Error): void;
}): Promise<FeedReactor> {
  const { events, reads } = opts;
  const checkpoint = await reactorCheckpoint(reads, feedAnswersCheckpoint);
  let caughtUp!: () => void;
  const caught = new Promise<void>((r) => (caughtUp = r));
  const report = opts.onError ?? ((e: Error) => console.error('feed answers:', e));
  // A turn can lose to a busy world (staleRoot, a full batch): try again a few times, since
  // answering is idempotent; past that, report it and go on (the next start's sweep retries).
  const answer = async (post: FeedPosted['data']) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await answerPost(opts, post);
      } catch (error) {
        if (attempt >= 4) return report(error instanceof Error ? error : new Error(String(error)));
        await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
      }
    }
  };
  // Whatever a crash, or a front that stopped, left unanswered: answered before the new posts.
  for (const post of await opts.feed.unanswered()) await answer(post);
  const handlers: SubscribeHandlers = {
    onEvent: async (event: RecordedEvent) => {
      if (event.type === 'FeedPosted') {
        const posted = decodeFeedEvent(event);
        if (posted.type === 'FeedPosted' && posted.data.root === posted.data.rkey) {
          await answer(posted.data);
        }
      }
      checkpoint.reached(event.position);
    },
    onPassed: (position) => checkpoint.reached(position),
    onCaughtUp: () => caughtUp(),
    onError: (error: Error) => {
      caughtUp();
      report(error);
    },
  };
  const subscription: Subscription =
    opts.pollMs !== undefined
      ? pollAll(events, checkpoint.from, handlers, opts.pollMs)
      : events.subscribeToAll(checkpoint.from, handlers, { streamPrefixes: ['feed-'] });
  return {
    caughtUp: caught,
    async close() {
      await subscription.close();
      await checkpoint.close();
    },
  };
}
