/**
 * Handlers of the feed (spec 4.4, 4.6): posts go to the feed service (the write side), reads come
 * from the feed projection after it shows the caller's own latest post (read-your-writes).
 */
import type { Caller } from '../../contract/caller.js';
import type { FeedService } from '../../commands/feed-service.js';
import { postUri } from '../../events/feed.js';
import { feedPage } from '../../pages/feed-page.js';
import { sendPage } from '../../pages/layout.js';
import type { FeedPosted } from '../../events/feed.js';
import { feedPost, readFeed } from '../../queries/feed.js';
import type { ReadYourWrites } from '../../queries/fresh.js';
import type { ReadStore } from '../../stores/read-store.js';
import { checkSameOrigin } from '../same-origin.js';
import type { TownConfig } from '../../contract/town-config.js';
import { links } from '../../contract/links.js';
import type { RoomHandlers } from '../route-types.js';
import { hrefOf } from '../routes.js';

export interface FeedDeps {
  feed: FeedService;
  reads: ReadStore;
  fresh: ReadYourWrites;
  config: TownConfig;
  /** The journal height now (what a page's live channel resumes from). */
  height(): number;
}

export type FeedRoute = 'feed' | 'feedPost' | 'feedPage' | 'feedPagePost';

const authorOf = (caller: Caller) => ({ principal: caller.principal, did: caller.did, handle: caller.handle });

export function feedHandlers(deps: FeedDeps): RoomHandlers<FeedRoute> {
  const { feed, reads, fresh, config } = deps;
  const host = config.host;

  async function post(caller: Caller, text: string, replyTo: string | undefined): Promise<FeedPosted['data']> {
    const done = await feed.post(authorOf(caller), text, replyTo);
    fresh.note(caller.principal, done.position);
    return done.event.data;
  }

  return {
    async feed(ctx) {
      await fresh.settle(ctx.state.caller.principal, 'feed');
      const { threads, next } = await readFeed(reads, host, ctx.state.query);
      return { threads, _links: links({ post: hrefOf('feedPost'), next: next ? hrefOf('feed', {}, { before: next }) : undefined }) };
    },

    async feedPost(ctx) {
      const body = ctx.state.body;
      const data = await post(ctx.state.caller, body.text, body.reply_to);
      const thread = postUri(host, data.root);
      return {
        ...feedPost(host, { ...data, town: false }),
        _links: links({ thread: hrefOf('feed', {}, { thread }), feed: hrefOf('feed') }),
      };
    },

    async feedPage(ctx) {
      const caller = ctx.state.caller;
      if (caller) await fresh.settle(caller.principal, 'feed');
      const { threads, next } = await readFeed(reads, host, ctx.state.query);
      // A thread the town has not answered yet: the script follows /live; without it the page
      // says to reload (no Refresh header, which would reload a reply being typed).
      sendPage(ctx, feedPage(caller, threads, deps.height(), next, host));
    },

    async feedPagePost(ctx) {
      checkSameOrigin(ctx, config);
      const body = ctx.state.body;
      await post(ctx.state.caller, body.text, body.reply_to || undefined);
      ctx.redirect('/feed');
      ctx.status = 303;
      return undefined;
    },
  };
}
