/**
 * A guest's scratch worlds (spec 4.3): opening one (empty, or a fork of the town or of another of
 * the guest's worlds as it stood at a height), finding the one a route names, listing them for
 * `me`, and their expiry six hours of home-world clock after the last entry in them.
 *
 * Which worlds are open is the registry stream's (`scratch-<guest>`, decided by
 * src/commands/scratch.ts through the shared command handler); each world is decided by the
 * same kernel as the town, by a WorldService of its own on its own stream, opened when first
 * used and kept while the world is open.
 */
import type { Command, ForkCommand } from '../cards/kernel/commands.js';
import type { Entry } from '../cards/kernel/entry.js';
import { evolve } from '../cards/kernel/evolve.js';
import { forkBase, forkSourceWorld, type FrozenWorld, frozenWorld } from '../cards/kernel/history.js';
import type { KernelOptions } from '../cards/kernel/options.js';
import type { Programs } from '../cards/kernel/programs.js';
import { layered, type World } from '../cards/kernel/world.js';
import type { Clock } from '../contract/clock.js';
import { limits } from '../contract/limits.js';
import { TownError } from '../contract/town-error.js';
import { ScratchEvent, scratchStream } from '../events/scratch.js';
import { epochBefore } from '../events/epochs.js';
import { decodeWorldEntry, TOWN_WORLD, worldStream } from '../events/world.js';
import { fold, handleCommand } from './streams.js';
import type { EventStore } from '../stores/event-store.js';
import { expiresAt, type LastTurns, type OpenWorld, type ScratchRefusal, scratchDecider } from './scratch.js';
import { WorldService, type WorldServiceOptions } from './world-service.js';

const scratchKind = { codec: ScratchEvent, decider: scratchDecider };

export interface Guest {
  principal: string;
  name: string;
}

/** One open scratch world as `GET /AGENTS.md/me` lists it in `scratches`. */
export interface ScratchSummary {
  principal: string;
  world: string;
  lastTurn: string;
  expires: string;
}

export interface ScratchDeps {
  events: EventStore;
  programs: Programs;
  clock: Clock;
  options: () => KernelOptions;
  /** The town's own service: forks of the town read it, cites are journaled in it. */
  town: WorldService;
  host: string;
  /** Told of every command decided in a scratch world (the operator's turn counts). */
  onDecided?: WorldServiceOptions['onDecided'];
}

/** A scratch world as routes use it. */
export interface OpenScratch {
  /** As the guest names it: `scratch/<name>`. */
  world: string;
  name: string;
  /** The world id its journal and read models are kept under. */
  id: string;
  service: WorldService;
}

const lifetimeMs = limits.scratchLifetimeSeconds * 1000;
/** The scratch world that is a guest's heap in the earlier catalogue shape. */
export const heapName = 'heap';
const iso = (ms: number) => new Date(ms).toISOString();

/** The town as a fork reads through to it, held while the fork is open. */
interface Held {
  world: FrozenWorld;
  release(): void;
}

/** The town replayed to a height (no pin of the live town holds it), shared by forks at that height. */
interface Replayed {
  world: Promise<World>;
  forks: number;
}

export class ScratchWorlds {
  private readonly services = new Map<string, Promise<WorldService>>();
  /** Per open fork of the town (by world id): the town as it stood at the fork's height. */
  private readonly held = new Map<string, Held>();
  private readonly replayed = new Map<number, Replayed>();

  constructor(private readonly o: ScratchDeps) {}

  /** Scratch worlds this front holds open now (loaded, not yet expired). */
  get openHere(): number {
    return this.services.size;
  }

  /** POST /AGENTS.md/scratch: opens `name`, empty or forked; answers spec 2.8. */
  async open(
    guest: Guest,
    name: string,
    from?: { world: string; height?: number },
  ): Promise<{ status: 'scratch'; world: string; height: number; expires: string; position: bigint | undefined }> {
    const source = from ? await this.source(guest, from) : undefined;
    let opened: OpenWorld;
    try {
      const now = this.o.clock();
      const handled = await handleCommand(this.o.events, scratchStream(guest.name), scratchKind, {
        kind: 'open',
        guest: guest.name,
        name,
        now,
        lastTurns: await this.lastTurns(guest),
        ...(source ? { from: { world: source.world, height: source.height } } : {}),
      });
      if (!handled.ok) throw refusal(handled.reason, name, now);
      await this.forgetEnded(handled.events);
      opened = handled.state.open.get(name)!;
    } catch (error) {
      source?.held?.release();
      throw error;
    }
    if (source?.held) this.held.set(opened.world, source.held);
    const first = (): Extract<Command, { kind: 'empty' | 'fork' }> =>
      source ? source.fork(guest.principal, opened.world) : { kind: 'empty', name: opened.world, host: this.o.host, opener: guest.principal };
    let service: WorldService;
    try {
      service = await this.service(opened.world, first);
    } catch (error) {
      // The world's first entry never came to be here: the height it would have read goes free.
      this.held.get(opened.world)?.release();
      this.held.delete(opened.world);
      throw error;
    }
    return {
      status: 'scratch',
      world: `scratch/${name}`,
      height: service.height,
      expires: iso(service.committed.clock + lifetimeMs),
      position: service.position,
    };
  }

  /** The guest's open world of that name; another guest's, an expired one or none answer alike. */
  async world(guest: Guest, name: string): Promise<OpenScratch> {
    const open = await this.openWorlds(guest);
    const w = open.find((x) => x.name === name);
    if (!w) throw unknownWorld(name);
    return { world: `scratch/${name}`, name, id: w.world, service: await this.service(w.world) };
  }

  /**
   * The guest's private heap (spec 9, the earlier catalogue shape): its scratch world named
   * `heap`, opened empty on first use and again after it expires. The earlier shape has no other
   * scratch worlds, so the heap never meets the limit of two.
   */
  async heap(guest: Guest): Promise<OpenScratch> {
    const open = await this.openWorlds(guest);
    if (!open.some((x) => x.name === heapName)) {
      try {
        await this.open(guest, heapName);
      } catch (error) {
        // Two first calls at once: the other opened it.
        if (!(error instanceof TownError) || error.cls !== 'hostRequest') throw error;
      }
    }
    return this.world(guest, heapName);
  }

  /**
   * DELETE /AGENTS.md/scratch/{name}: the guest closes one of its open worlds. It stops answering
   * at once and its slot is free for the next open; its read models and journal go as an expired
   * world's do. What was cited from it lives in the town's journal and stays.
   */
  async shut(guest: Guest, name: string): Promise<{ status: 'closed'; world: string; height: number }> {
    const now = this.o.clock();
    const handled = await handleCommand(this.o.events, scratchStream(guest.name), scratchKind, {
      kind: 'close',
      name,
      now,
      lastTurns: await this.lastTurns(guest),
    });
    if (!handled.ok) {
      await this.openWorlds(guest);
      throw unknownWorld(name);
    }
    const closed = handled.events.find((e) => e.type === 'ScratchClosed');
    const service = closed ? await this.services.get(closed.data.world)?.catch(() => undefined) : undefined;
    const height = service?.height ?? (closed ? await this.heightOf(closed.data.world) : 0);
    await this.forgetEnded(handled.events);
    return { status: 'closed', world: `scratch/${name}`, height };
  }

  /** `me.scratches` (src/queries/me.ts): the guest's open worlds, each with its last turn and when it expires. */
  async list(guest: Guest): Promise<ScratchSummary[]> {
    const open = await this.openWorlds(guest);
    const lastTurns = await this.lastTurns(guest, open);
    return open.map((w) => ({
      principal: guest.principal,
      world: `scratch/${w.name}`,
      lastTurn: iso(lastTurns.get(w.world) ?? w.openedAt),
      expires: iso(expiresAt(w, lastTurns)),
    }));
  }

  async close(): Promise<void> {
    const all = [...this.services.values()];
    this.services.clear();
    await Promise.all(all.map(async (s) => (await s.catch(() => undefined))?.close()));
    for (const h of this.held.values()) h.release();
    this.held.clear();
  }

  /** The guest's worlds still open now: any past its time is recorded as expired first. */
  private async openWorlds(guest: Guest): Promise<OpenWorld[]> {
    const { state } = await fold(this.o.events, scratchStream(guest.name), scratchKind);
    const lastTurns = await this.lastTurns(guest, [...state.open.values()]);
    const now = this.o.clock();
    if ([...state.open.values()].some((w) => expiresAt(w, lastTurns) <= now)) {
      const handled = await handleCommand(this.o.events, scratchStream(guest.name), scratchKind, { kind: 'expire', now, lastTurns });
      if (handled.ok) {
        await this.forgetEnded(handled.events);
        return [...handled.state.open.values()];
      }
    }
    return [...state.open.values()];
  }

  /** Per open world of the guest, the clock of its latest entry. */
  private async lastTurns(guest: Guest, open?: OpenWorld[]): Promise<LastTurns> {
    const worlds = open ?? [...(await fold(this.o.events, scratchStream(guest.name), scratchKind)).state.open.values()];
    const out = new Map<string, number>();
    for (const w of worlds) {
      const loaded = this.services.get(w.world);
      if (loaded) {
        out.set(w.world, (await loaded).current.clock);
        continue;
      }
      const [last] = await this.o.events.readStream(worldStream(w.world), { direction: 'backwards', maxCount: 1 });
      if (last) out.set(w.world, decodeWorldEntry(last).clock);
    }
    return out;
  }

  /** A world's height as its journal holds it (a world not loaded here). */
  private async heightOf(world: string): Promise<number> {
    const [last] = await this.o.events.readStream(worldStream(world), { direction: 'backwards', maxCount: 1 });
    return last ? decodeWorldEntry(last).height + 1 : 0;
  }

  /**
   * An expired or closed world stops answering and leaves memory; its read models go with its
   * ending event,
   * its journal stream is deleted (a tombstone: nothing can append to it again), and a fork lets
   * go of the height of the town it held.
   */
  private async forgetEnded(events: readonly ScratchEvent[]): Promise<void> {
    for (const e of events) {
      if (e.type === 'ScratchOpened') continue;
      const s = this.services.get(e.data.world);
      this.services.delete(e.data.world);
      if (s) await (await s.catch(() => undefined))?.close();
      this.held.get(e.data.world)?.release();
      this.held.delete(e.data.world);
      // The expiry is journaled already: a store that fails the delete leaves a stream nobody reads.
      await this.o.events.deleteStream(worldStream(e.data.world)).catch(() => undefined);
    }
  }

  private service(id: string, first?: () => Extract<Command, { kind: 'empty' | 'fork' }>): Promise<WorldService> {
    let s = this.services.get(id);
    if (!s) {
      const service = new WorldService({
        events: this.o.events,
        programs: this.o.programs,
        clock: this.o.clock,
        options: this.o.options,
        world: id,
        genesis: { host: this.o.host, opener: '' },
        layer: (fork) => this.layer(fork),
        ...(first ? { first } : {}),
        ...(this.o.onDecided ? { onDecided: this.o.onDecided } : {}),
      });
      s = service.open().then(() => service);
      this.services.set(id, s);
      s.catch(() => this.services.delete(id));
    }
    return s;
  }

  /**
   * The world a fork is taken from, as it stood at the height asked for: the town or one of the
   * guest's own open worlds; a height past the head is refused.
   *
   * A fork of the town carries nothing and reads through to the town as it stood (`held`: a pin
   * of the live town's history, or the town replayed to that height). A fork of a scratch world
   * carries what the forker may view there: a scratch world's journal is deleted when it expires,
   * so nothing may read through to it.
   */
  private async source(
    guest: Guest,
    from: { world: string; height?: number },
  ): Promise<{ world: string; height: number; held?: Held; fork(forker: string, name: string): ForkCommand }> {
    if (from.world === 'town') {
      const head = this.o.town.height;
      const height = checkHeight(from, head);
      const held = await this.townAt(height);
      const at = held.world;
      return {
        world: from.world,
        height,
        held,
        fork: (forker, name) => ({
          kind: 'fork',
          through: true,
          source: { ...forkBase(at, forker), name: TOWN_WORLD, host: at.host, entrance: at.entrance, height: at.height },
          forker,
          name,
        }),
      };
    }
    const name = from.world.slice('scratch/'.length);
    const w = await this.world(guest, name).catch(() => {
      throw new TownError(
        'unknown',
        `from.world ${JSON.stringify(from.world)} is not an open scratch world of yours; fork "town" or "scratch/<one of yours>"`,
        {
          hintHref: '/AGENTS.md/me',
        },
      );
    });
    const height = checkHeight(from, w.service.height);
    // The head needs no replay: the fork is taken from the world as it stands when it is decided.
    const at = from.height === undefined ? undefined : await this.worldAt(w.id, height);
    return { world: from.world, height, fork: (forker, name) => ({ kind: 'fork', source: at ?? w.service.committed, forker, name }) };
  }

  /**
   * The town as it stood at `height`: a pin of the live town when it stands there now (or
   * another fork holds that height), else the town's journal replayed up to it, shared by the
   * forks at that height (this costs the replay's time and a whole world in memory).
   */
  private async townAt(height: number): Promise<Held> {
    const pin = this.o.town.pin(height);
    if (pin) return pin;
    let r = this.replayed.get(height);
    if (!r) {
      r = { world: this.worldAt(TOWN_WORLD, height), forks: 0 };
      this.replayed.set(height, r);
      r.world.catch(() => this.replayed.delete(height));
    }
    r.forks++;
    const replayed = r;
    let released = false;
    return {
      world: frozenWorld(await r.world),
      release: () => {
        if (released) return;
        released = true;
        if (--replayed.forks === 0 && this.replayed.get(height) === replayed) this.replayed.delete(height);
      },
    };
  }

  /** The world a fork that reads through starts from (its service asks, given its first entry). */
  private async layer(fork: Entry): Promise<World> {
    const id = fork.world?.name ?? '';
    const from = fork.from!;
    if (from.world !== TOWN_WORLD) throw new Error(`${id} reads through to ${from.world}: only forks of the town read through`);
    let held = this.held.get(id);
    if (held && held.world.height !== from.height) {
      // Another front founded the world at another height first: its entry is the world.
      held.release();
      this.held.delete(id);
      held = undefined;
    }
    if (!held) {
      // Opened again after a restart (or by another front): the town as it stood at the fork.
      held = await this.townAt(from.height);
      const raced = this.held.get(id);
      if (raced) {
        held.release();
        held = raced;
      } else this.held.set(id, held);
    }
    return forkBase(held.world, fork.principal);
  }

  /**
   * A world replayed from its journal up to `height` entries, keeping only what a fork of it reads
   * (`forkSourceWorld`); a fork reading through starts from its source.
   */
  private async worldAt(id: string, height: number): Promise<World> {
    let world = forkSourceWorld();
    // after a carry, from the carry entry of the epoch that holds the height (it holds the world before it)
    const epoch = await epochBefore(this.o.events, id, height);
    let next = epoch.start;
    while (next < height) {
      const page = await this.o.events.readStream(epoch.stream, { fromRevision: BigInt(next - epoch.start), maxCount: Math.min(2048, height - next) });
      if (!page.length) break;
      for (const recorded of page) {
        const entry = decodeWorldEntry(recorded);
        if (entry.height === 0 && entry.from?.through) world = layered(await this.layer(entry));
        evolve(world, entry);
      }
      next += page.length;
    }
    if (world.carrying) {
      throw new TownError('hostRequest', `${id} at height ${height} is part-way through a carry laid in parts: fork it at a height after its last part`, {
        hintHref: '/AGENTS.md/api',
      });
    }
    return world;
  }
}

function checkHeight(from: { world: string; height?: number }, head: number): number {
  const height = from.height ?? head;
  if (height < 1 || height > head) {
    throw new TownError('hostRequest', `from.height ${height} is not a height of ${from.world}: its journal holds heights 1 to ${head}`, {
      hintHref: '/AGENTS.md/api',
    });
  }
  return height;
}

function unknownWorld(name: string): TownError {
  return new TownError('unknown', `no scratch world ${JSON.stringify(name)} of yours is open; open one with POST /AGENTS.md/scratch`, {
    hintHref: '/AGENTS.md/scratch',
  });
}

function refusal(r: ScratchRefusal, name: string, now: number): TownError {
  if (r.reason === 'notOpen') return unknownWorld(name);
  if (r.reason === 'alreadyOpen') {
    return new TownError('hostRequest', `your scratch world ${JSON.stringify(name)} is already open; its routes are under /AGENTS.md/scratch/${name}/`, {
      hintHref: `/AGENTS.md/scratch/${name}/world`,
    });
  }
  return new TownError(
    'rateLimited',
    `you have ${limits.scratchWorlds} scratch worlds open, the most at once; the oldest, scratch/${r.oldest}, expires at ${iso(r.expires)}`,
    {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil((r.expires - now) / 1000))) },
      fields: { oldest: `scratch/${r.oldest}`, expires: iso(r.expires) },
    },
  );
}
