/**
 * The server-sent event channels of spec 6. They follow the world service's commit
 * notifications (the journal as this front appends it), never the read store, so an event is
 * sent as soon as the turn is durable.
 *
 *   GET /live           `moved`, id = journal height (also the data), from Last-Event-ID / `?h=`
 *   GET /live/{object}  `view`,  id = the card's version, data = {object, version, paint} drawn
 *                       again for the reader, from Last-Event-ID / `?v=`; 404 for a thing
 *                       without a view (or one the reader may not see)
 *
 * Each stream is held `holdMs` (55 s) and then closed (the browser reconnects); at most `max`
 * (16) are open at once across both channels, beyond which the answer is `busy` (503). Both
 * channels need the session cookie (the front refuses a reader without one), and no one session
 * may hold more than `perSession` (4) of them, nor one address more than `perAddress` (8): one
 * client cannot take every stream and shut live pages off for everyone (429, with Retry-After
 * the moment its own oldest stream ends).
 *
 * A reader that stops reading is let go: once more than `slowBytes` (256 KB) wait unsent in the
 * response (its `writableLength`, what node holds beyond what the kernel took), the response is
 * ended and its socket cut, and the drop counted (docs/decisions/slow-consumers.md). The browser
 * reconnects from its Last-Event-ID as after any other end.
 */
import type { Program } from '../cards/program.js';
import type { Card } from '../cards/kernel/entry.js';
import { cardProgram, drawView } from '../cards/kernel/reading.js';
import { visibleCard, type World } from '../cards/kernel/world.js';
import type { Programs } from '../cards/kernel/programs.js';
import { limits } from '../contract/limits.js';
import type { TownContext } from '../contract/town-context.js';
import { TownError } from '../contract/town-error.js';

/** What the channels need of the world service (src/commands/world-service.ts). */
export interface LiveWorld {
  readonly height: number;
  readonly committed: World;
  onCommit(listener: (entries: readonly unknown[], position: bigint) => void): () => void;
}

export interface LiveOptions {
  world: LiveWorld;
  programs: Programs;
  /** How long a stream is held before it is closed (spec: 55 s; tests pass less). */
  holdMs?: number;
  /** Streams open at once (spec: 16). */
  max?: number;
  /** Streams one session may hold at once (4). */
  perSession?: number;
  /** Streams one address may hold at once (8). */
  perAddress?: number;
  /** Bytes that may wait unsent for one reader before it is dropped (liveSlowBytes). */
  slowBytes?: number;
  /** A reader was dropped for reading too slowly. */
  onSlowDrop?: () => void;
}

/** Bytes that may wait unsent for one live reader: 16 streams hold at most 4 MB between them. */
export const liveSlowBytes = 256 * 1024;

export interface LiveChannels {
  moved(ctx: TownContext): void;
  view(ctx: TownContext, object: string): void;
  /** Streams open now. */
  readonly open: number;
  /** Ends every open stream (the town is closing). */
  closeAll(): void;
}

/**
 * The position a reader resumes from: Last-Event-ID, else the query's, else now. An EventSource
 * that reconnects sends the page's own URL again (its `?v=` as the page was drawn) with the id of
 * the last event it heard, which is the later of the two.
 */
function resumeFrom(ctx: TownContext, query: string | undefined): number | undefined {
  const last = ctx.get('Last-Event-ID');
  if (/^\d{1,15}$/.test(last)) return Number(last);
  return query !== undefined ? Number(query) : undefined;
}

const frame = (event: string, id: number, data: string) => `event: ${event}\nid: ${id}\ndata: ${data}\n\n`;

/** A view a card can be drawn with: paint first, else any other view. */
function viewName(program: Program | undefined): string | undefined {
  const views = program?.methods.filter((m) => m.kind === 'view').map((m) => m.name) ?? [];
  return views.includes('paint') ? 'paint' : views[0];
}

/** An open stream: how to end it, whose it is, and when its hold time is over. */
interface Held {
  session: string;
  address: string;
  until: number;
}

export function liveChannels(o: LiveOptions): LiveChannels {
  const holdMs = o.holdMs ?? limits.liveStreamSeconds * 1000;
  const max = o.max ?? limits.liveStreams;
  const perSession = o.perSession ?? limits.liveStreamsPerSession;
  const perAddress = o.perAddress ?? limits.liveStreamsPerAddress;
  const slowBytes = o.slowBytes ?? liveSlowBytes;
  const ends = new Map<() => void, Held>();

  /** Refuses a stream beyond the town's 16, or beyond the caller's fair share of them. */
  function admit(session: string, address: string): void {
    if (ends.size >= max) {
      throw new TownError('busy', `${max} live streams are open, the most this town holds at once; try again shortly`, { headers: { 'Retry-After': '5' } });
    }
    const mine = (key: 'session' | 'address', value: string) => [...ends.values()].filter((h) => h[key] === value);
    for (const [whose, held, share] of [
      ['this session', mine('session', session), perSession],
      ['this address', mine('address', address), perAddress],
    ] as const) {
      if (held.length < share) continue;
      const wait = Math.max(1, Math.ceil((Math.min(...held.map((h) => h.until)) - Date.now()) / 1000));
      throw new TownError('rateLimited', `${whose} holds ${held.length} live streams, its share of the ${max}; close a page, or try again in ${wait} s`, {
        headers: { 'Retry-After': String(wait) },
      });
    }
  }

  /**
   * Opens a stream: takes a slot, answers the headers, and calls `tick` now and after every
   * commit until the stream ends (held time over, reader gone, or `tick` says so).
   */
  function stream(ctx: TownContext, tick: (write: (text: string) => void) => boolean | undefined): void {
    const session = ctx.state.session ?? '';
    admit(session, ctx.state.address);
    const res = ctx.res;
    let ended = false;
    let unsubscribe = () => {};
    let timer: NodeJS.Timeout | undefined;
    const end = () => {
      if (ended) return;
      ended = true;
      ends.delete(end);
      unsubscribe();
      clearTimeout(timer);
      if (!res.writableEnded) res.end();
    };
    ends.set(end, { session, address: ctx.state.address, until: Date.now() + holdMs });
    const write = (text: string) => {
      if (ended || !res.writable) return;
      if (res.write(text) || res.writableLength <= slowBytes) return;
      // The reader has let more wait than its share: it is dropped, and what waited for it freed.
      end();
      o.onSlowDrop?.();
      res.destroy();
    };
    const run = () => {
      if (ended) return;
      try {
        if (tick(write) === false) end();
      } catch {
        end(); // a stream never takes the front down; the browser reconnects
      }
    };
    // The stream is written here, not piped by koa: a reader leaving is the normal end of a
    // stream, not a failed reply.
    ctx.respond = false;
    ctx.status = 200;
    ctx.req.on('close', end);
    res.on('close', end);
    res.on('error', end);
    timer = setTimeout(end, holdMs);
    // Commits are announced inside the service's own bookkeeping: the world is read after it.
    unsubscribe = o.world.onCommit(() => setImmediate(run));
    ctx.req.socket.setNoDelay(true);
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      'X-Accel-Buffering': 'no',
    });
    // HEAD asks whether the stream would open, not for a stream: it must not hold a place.
    if (ctx.method === 'HEAD') return end();
    write(`retry: 2000\n: held ${Math.round(holdMs / 1000)} s\n\n`);
    run();
  }

  return {
    get open() {
      return ends.size;
    },

    closeAll() {
      for (const end of [...ends.keys()]) end();
    },

    moved(ctx) {
      let sent = resumeFrom(ctx, ctx.state.query.h) ?? o.world.height;
      stream(ctx, (write) => {
        const height = o.world.height;
        if (height > sent) {
          sent = height;
          write(frame('moved', height, String(height)));
        }
      });
    },

    view(ctx, object) {
      const reader = ctx.state.caller?.principal ?? '';
      const shown = (): { card: Card; program: Program; name: string } | undefined => {
        const world = o.world.committed;
        const card = visibleCard(world, object, reader);
        if (!card) return undefined;
        const program = cardProgram(world, o.programs, card);
        const name = viewName(program);
        return program && name ? { card, program, name } : undefined;
      };
      const first = shown();
      if (!first) {
        throw new TownError('unknown', `no thing ${JSON.stringify(object)} with a view that you may see`, { hintHref: '/live' });
      }
      // Spec 5.7: a card the reader may see but whose view refuses them is `denied`.
      const refused = drawView(first.program, first.card, first.name, reader);
      if (!refused.ok) throw new TownError('denied', `${object} will not be shown to you`, { fields: { object } });
      let sent = resumeFrom(ctx, ctx.state.query.v) ?? first.card.version;
      stream(ctx, (write) => {
        const now = shown();
        if (!now) return false; // gone, hidden from the reader, or its view taken away
        if (now.card.version <= sent) return;
        const drawn = drawView(now.program, now.card, now.name, reader);
        if (!drawn.ok) return false; // the card will no longer be shown to this reader
        sent = now.card.version;
        const paint = drawn.result.tag === 'label' ? drawn.result.value : JSON.stringify(drawn.result);
        write(frame('view', sent, JSON.stringify({ object, version: sent, view: now.name, paint })));
      });
    },
  };
}
