/**
 * Handlers of the pages for people (spec 4.6) and the server-sent event channels (spec 6).
 * Pages read the world's read models through src/queries (waiting, for a signed-in guest, until
 * they show the guest's own latest turn); the play page casts turns through the world service as
 * the API does; the live channels follow the world service's commits.
 *
 * Read-only pages are served without a session (as a reader who sees only what everyone may
 * see, under the machinery's per-address page budget); /play needs the session cookie (the
 * machinery answers 303 to /enter without one), and so do the live streams (401 without one).
 */
import { castTurn } from '../../commands/turn.js';
import { checkSameOrigin } from '../same-origin.js';
import { shownCard } from '../../queries/card.js';
import { spellableId, townReads, type WorldReads } from '../../queries/world-reads.js';
import { bookPage, residentOf } from '../../pages/book-page.js';
import { cardPage } from '../../pages/card-page.js';
import { townIcon } from '../../pages/icon.js';
import { historyPage } from '../../pages/history-page.js';
import { homePage } from '../../pages/home-page.js';
import { inspectPage } from '../../pages/inspect-page.js';
import { kindsPage } from '../../pages/kinds-page.js';
import { sendPage } from '../../pages/layout.js';
import { libIndexPage, libModulePage } from '../../pages/lib-page.js';
import { libraryIndexPage, libraryPage } from '../../pages/library-page.js';
import { liveChannels } from '../../pages/live.js';
import { mapPage } from '../../pages/map-page.js';
import { freshIntent, outcomeSection, playPage, playRequest } from '../../pages/play-page.js';
import { assetNamed } from '../../pages/static.js';
import { receiptPage } from '../../pages/receipt-page.js';
import { stylePage } from '../../pages/style-page.js';
import { townPage } from '../../pages/town-page.js';
import type { RoomHandlers } from '../route-types.js';
import { TownError } from '../../contract/town-error.js';
import type { Caller } from '../../contract/caller.js';
import type { TownConfig } from '../../contract/town-config.js';
import type { WorldDeps } from './world.js';
import type { ProjectionName } from '../../projections/index.js';

/** What the world routes read and write through, plus what pages add. */
export interface PagesDeps extends Omit<WorldDeps, 'options'> {
  /** The town's origin, for the same-origin check of POST /play; its host, for handles. */
  config: Pick<TownConfig, 'origin' | 'host'>;
  /** The live channels' hold time, stream count and shares (spec: 55 s, 16; 4 a session, 8 an address); tests change them. */
  live?: { holdMs?: number; max?: number; perSession?: number; perAddress?: number; slowBytes?: number };
  /** A live stream's reader was dropped for reading too slowly (counted in /metrics). */
  onSlowDrop?: () => void;
}

/** How long a live page waits for the read models to reach the journal's height. */
const liveSettleMs = 1000;

/** The pages for people of spec 4.6 (but the guest door, which the identity room serves). */
export type PagesRoute =
  | 'playHome'
  | 'receiptPage'
  | 'home'
  | 'cardPage'
  | 'town'
  | 'inspect'
  | 'kinds'
  | 'library'
  | 'libraryPage'
  | 'lib'
  | 'libModule'
  | 'history'
  | 'map'
  | 'play'
  | 'playPost'
  | 'style'
  | 'book'
  | 'favicon'
  | 'static'
  | 'liveObject'
  | 'live';

export function pagesHandlers(deps: PagesDeps): RoomHandlers<PagesRoute> {
  const { service, fresh } = deps;
  const r: WorldReads = { ...townReads(deps, service), host: deps.config.host };
  const channels = liveChannels({ world: service, programs: deps.programs, ...deps.live, ...(deps.onSlowDrop ? { onSlowDrop: deps.onSlowDrop } : {}) });

  /** A signed-in guest's pages show their own latest turn (read-your-writes). */
  const settled = async (caller: Caller | undefined, ...projections: ProjectionName[]) => {
    if (caller) for (const p of projections) await fresh.settle(caller.principal, p);
  };
  /**
   * The journal height a live page is drawn at (what `/live?h=` resumes from): the service's
   * height once the read models the page reads have folded it (bounded), so that a page never
   * claims a height whose entries it does not show, and so never misses the `moved` after them.
   */
  const drawnAt = async (...projections: ProjectionName[]): Promise<number> => {
    const height = service.height;
    const position = service.position;
    if (position !== undefined) for (const p of projections) await fresh.waits.wait(p, position, liveSettleMs);
    return height;
  };
  return {
    async playHome(ctx) {
      // `/play` is `/play/`'s address without its slash: a person who typed it goes there
      if (!ctx.path.endsWith('/')) {
        ctx.status = 301;
        ctx.redirect('/play/');
        return;
      }
      const avatar = service.current.avatars.get(ctx.state.caller.principal);
      ctx.redirect(avatar === undefined ? '/' : `/play/${encodeURIComponent(avatar)}`);
      ctx.status = 303;
    },
    async receiptPage(ctx) {
      await settled(ctx.state.caller, 'receipts');
      sendPage(ctx, await receiptPage(r, ctx.params.slug, ctx.state.caller));
    },
    async home(ctx) {
      const caller = ctx.state.caller;
      sendPage(ctx, homePage(caller, service.height, caller ? service.current.avatars.get(caller.principal) : undefined));
    },

    async cardPage(ctx) {
      const id = spellableId(ctx.params.object);
      await settled(ctx.state.caller, 'cards', 'receipts');
      sendPage(ctx, await cardPage(r, id, ctx.state.caller, ctx.state.query.show));
    },

    async town(ctx) {
      // a signed-in guest's own turn first (its bound, 2 s, is the longer), then the page's height
      await settled(ctx.state.caller, 'cards');
      const height = await drawnAt('cards');
      sendPage(ctx, await townPage(r, ctx.state.caller, ctx.state.query.open, height));
    },

    async inspect(ctx) {
      const id = spellableId(ctx.params.object);
      await settled(ctx.state.caller, 'cards', 'receipts');
      const height = await drawnAt('cards', 'receipts');
      sendPage(ctx, await inspectPage(r, id, ctx.state.caller, height));
    },

    async kinds(ctx) {
      await settled(ctx.state.caller, 'cards');
      sendPage(ctx, await kindsPage(r, ctx.state.caller));
    },

    async library(ctx) {
      sendPage(ctx, libraryIndexPage(ctx.state.caller));
    },

    async libraryPage(ctx) {
      sendPage(ctx, libraryPage(ctx.params.name, ctx.state.caller));
    },

    async lib(ctx) {
      await settled(ctx.state.caller, 'cards');
      sendPage(ctx, await libIndexPage(r, ctx.state.caller));
    },

    async libModule(ctx) {
      await settled(ctx.state.caller, 'cards');
      sendPage(ctx, await libModulePage(r, ctx.params.name, ctx.state.query.cid, ctx.state.caller));
    },

    async history(ctx) {
      await settled(ctx.state.caller, 'cards', 'receipts');
      // followed live as /town is: a new line in the chronicle redraws the page
      const height = await drawnAt('cards', 'receipts');
      sendPage(ctx, await historyPage(r, ctx.state.caller, ctx.state.query, height));
    },

    async map(ctx) {
      await settled(ctx.state.caller, 'cards');
      sendPage(ctx, await mapPage(r, ctx.state.caller, ctx.state.query));
    },

    async play(ctx) {
      const caller = ctx.state.caller;
      const id = spellableId(ctx.params.object);
      await settled(caller, 'cards');
      sendPage(ctx, await playPage(r, id, caller, { say: ctx.state.query.say, avatar: service.current.avatars.get(caller.principal) }));
    },

    async playPost(ctx) {
      checkSameOrigin(ctx, deps.config);
      const caller = ctx.state.caller;
      const id = spellableId(ctx.params.object);
      await settled(caller, 'cards');
      // A card the guest may not see is refused as absent before any intent is spent.
      const { pkg } = await shownCard(r, id, caller.principal);
      const asked = playRequest(ctx.state.body, pkg);
      const decided = await castTurn(service, caller, id, asked.method, { intent: freshIntent(), fields: asked.fields });
      fresh.note(caller.principal, decided.position);
      await settled(caller, 'cards', 'offers');
      const outcome = await outcomeSection(r, caller, decided, id);
      sendPage(ctx, await playPage(r, id, caller, { outcome, avatar: service.current.avatars.get(caller.principal) }));
    },

    async style(ctx) {
      sendPage(ctx, stylePage(ctx.state.caller));
    },

    async book(ctx) {
      const caller = ctx.state.caller;
      await settled(caller, 'receipts');
      const resident = residentOf(deps.config.host, ctx.params.handle);
      const avatar = resident ? service.current.avatars.get(resident.principal) : undefined;
      sendPage(ctx, await bookPage(r, deps.config.host, ctx.params.handle, caller, ctx.state.query, avatar));
    },

    async favicon(ctx) {
      ctx.type = 'image/x-icon';
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.body = townIcon();
    },

    async static(ctx) {
      const asset = assetNamed(ctx.params.file);
      if (!asset)
        throw new TownError('unknownRoute', `no file ${JSON.stringify(ctx.params.file.slice(0, 80))} here; there are town.css, town.js and arrive.js`);
      ctx.type = asset.type;
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = asset.body;
    },

    async liveObject(ctx) {
      channels.view(ctx, spellableId(ctx.params.object));
    },

    async live(ctx) {
      channels.moved(ctx);
    },
  };
}
