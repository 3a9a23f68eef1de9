/**
 * The identity routes of the earlier catalogue shape (spec 9): a handle challenge, its post to
 * the town's feed, and its verification (src/identity/handle-challenge.ts decides). The posting
 * route is ours: the earlier shape has no feed routes, and a guest that holds no handle anywhere
 * else needs somewhere to say the text in public (docs/decisions/earlier-catalogue-shape.md).
 */
import type { FeedService } from '../../commands/feed-service.js';
import { TownError } from '../../contract/town-error.js';
import { postKey, postUri } from '../../events/feed.js';
import { nameOfHandle, type PostFacts } from '../../identity/handle-challenge.js';
import { identityOf, principalOf } from '../../contract/names.js';
import type { IdentityService } from '../../identity/service.js';
import { feedPosts } from '../../projections/feed.js';
import type { ReadYourWrites } from '../../queries/fresh.js';
import type { ReadStore } from '../../stores/read-store.js';
import type { TownConfig } from '../../contract/town-config.js';
import { links } from '../../contract/links.js';
import type { RoomHandlers } from '../route-types.js';
import { hrefOf } from '../routes.js';

export interface EarlierIdentityDeps {
  identity: IdentityService;
  feed: FeedService;
  reads: ReadStore;
  fresh: ReadYourWrites;
  config: TownConfig;
}

export type EarlierIdentityRoute = 'challenge' | 'challengePost' | 'verify';

const bearer = /^Bearer ([^\s]+)$/;

export function earlierIdentityHandlers(deps: EarlierIdentityDeps): RoomHandlers<EarlierIdentityRoute> {
  const { identity, feed, reads, fresh, config } = deps;
  const host = config.host;

  /** The post a verify names, from the feed's read model once it shows the poster's own post. */
  async function postAt(uri: string): Promise<PostFacts | undefined> {
    const rkey = postKey(host, uri);
    if (rkey === undefined) return undefined;
    const doc = await feedPosts.in(reads).findOne({ _id: rkey });
    if (!doc?.author) return undefined;
    return { uri, text: doc.text, author: doc.author.principal, at: doc.at };
  }

  return {
    async challenge(ctx) {
      const issued = await identity.challengeHandle(ctx.state.body.handle);
      return {
        status: 'challenge',
        ...issued,
        _links: links({ post: hrefOf('challengePost'), verify: hrefOf('verify') }),
      };
    },

    async challengePost(ctx) {
      const credential = bearer.exec(ctx.get('Authorization'))?.[1];
      const text = ctx.state.body.text;
      const name = credential === undefined ? undefined : await identity.challengePostAs(text, credential);
      if (name === undefined) {
        throw new TownError(
          'unauthenticated',
          "posting here takes a challenge's text exactly and, as Authorization: Bearer, that challenge's credential (while its handle is free and the challenge unexpired) or the handle's own",
          { hintHref: hrefOf('challenge') },
        );
      }
      const who = identityOf(host, name);
      const done = await feed.post({ principal: who.principal, did: who.did, handle: who.handle }, text);
      fresh.note(who.principal, done.position);
      return { status: 'posted', uri: postUri(host, done.event.data.rkey), text, _links: links({ verify: hrefOf('verify') }) };
    },

    async verify(ctx) {
      const { handle, uri } = ctx.state.body;
      // The post was the handle's own write: the feed read model is waited for as a read of theirs would.
      const name = nameOfHandle(host, handle);
      if (name !== undefined) await fresh.settle(principalOf(host, name), 'feed');
      const verified = await identity.verifyHandle(handle, uri, postAt);
      return { status: 'verified', ...verified, _links: links({ me: hrefOf('me'), world: hrefOf('world') }) };
    },
  };
}
