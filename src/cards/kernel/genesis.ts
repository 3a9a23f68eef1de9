/**
 * The first entry of a world: the genesis town (the sealed library plus a small town of rooms
 * joined by doors), an empty world with the library (a scratch world), or a fork of another
 * world carrying what the forker may view.
 */
import type { Entry, Package } from './entry.js';
import type { KernelOptions } from './options.js';
import type { PackageSource, Programs } from './programs.js';
import { seal } from './seal.js';
import { applySeed, isRefusal } from './seed.js';
import { nameOf, pinSlugOf, Refused, Turn } from './turn.js';
import { checkLaw } from './turn/law.js';
import { blankWorld, canSee, TOWN, type World } from './world.js';

export interface LayoutCard {
  id: string;
  kind: string;
  /** The room it lies in ('' for a room). */
  place: string;
  /** Plain JSON over the kind's initial state; fields the state lacks are left out. */
  seed?: Record<string, unknown>;
  /** Who owns it: the town (the default), or nobody (''), for a thing any guest may take. */
  owner?: string;
}

export interface TownLayout {
  entrance: string;
  cards: LayoutCard[];
}

const room = (id: string, name: string, description: string, doors: string[]): LayoutCard => ({
  id,
  kind: 'room',
  place: '',
  seed: { name, description, doors },
});
const door = (from: string, to: string, toName: string): LayoutCard => ({
  id: `door-${from}-${to}`,
  kind: 'door',
  place: from,
  seed: { name: `the door to ${toName}`, from, to },
});

/**
 * The genesis town: a square with a notice board and a lamp, and three rooms off it: the library,
 * the workshop (a workbench that makes cards of the library's kinds, offered to the caster) and
 * the post office (a postbox whose letters past the host's sixteen a turn wait in the queue).
 * Everything here is the town's: the law of rooms and doors keeps guests from renaming or
 * redescribing them, and the town's opener (the host) holds `quiet`.
 */
export const genesisTown: TownLayout = {
  entrance: 'square',
  cards: [
    {
      id: 'town',
      kind: 'town',
      place: '',
      seed: { name: 'the town', bounties: 'lamp-to-market: two of you bring the lamp to the market (bring lamp; 0 of 2 joined; 5 coins each)' },
    },
    room(
      'square',
      'the town square',
      'A paved square with a notice board by the well (say something to it and it pins your words), a lamp on a post and the market, where coins, goods and bounties change hands (purse, sell, buy, join, meet). Doors lead to the library, the workshop and the post office.',
      ['door-square-library', 'door-square-workshop', 'door-square-post-office'],
    ),
    room('library', 'the library', 'Shelves of the sealed library: every kind of card, each with a page and an example spell.', ['door-library-square']),
    room(
      'workshop',
      'the workshop',
      'A workbench and tools: craft kind=<lamp, note, board, door or room> at the bench, and the new card is yours to collect.',
      ['door-workshop-square'],
    ),
    room(
      'post-office',
      'the post office',
      'Pigeonholes and a postbox: post a letter, or many copies of one, to any card that hears words; the postbox sends them on, sixteen after each turn and the rest after the next.',
      ['door-post-office-square'],
    ),
    door('square', 'library', 'the library'),
    door('library', 'square', 'the town square'),
    door('square', 'workshop', 'the workshop'),
    door('workshop', 'square', 'the town square'),
    door('square', 'post-office', 'the post office'),
    door('post-office', 'square', 'the town square'),
    { id: 'notice-board', kind: 'board', place: 'square', seed: { title: 'the notice board' } },
    // nobody's: the thing any guest may take, carry off and give away (the rest are the town's fixtures)
    { id: 'lamp', kind: 'lamp', place: 'square', owner: '' },
    {
      id: 'market',
      kind: 'market',
      place: 'square',
      seed: {
        name: 'the market',
        bounties: [
          {
            key: 'lamp-to-market',
            text: 'two of you bring the lamp to the market',
            by: 'town',
            wants: 'lamp',
            reward: 5,
            crew: 2,
            joined: [],
          },
        ],
      },
    },
    { id: 'bench', kind: 'bench', place: 'workshop', seed: { name: 'the workbench' } },
    { id: 'postbox', kind: 'postbox', place: 'post-office', seed: { name: 'the postbox' } },
  ],
};

const zero = () => ({ ticks: 0, heap: 0, bytes: 0 });

/** Every kind of the library, pinned: the packages and the kind → pin table a world starts with. */
export function libraryPackages(programs: Programs): { packages: Package[]; kinds: { name: string; pin: string }[] } {
  const packages: Package[] = [];
  const kinds: { name: string; pin: string }[] = [];
  const seen = new Set<string>();
  for (const name of programs.kindNames()) {
    const src = programs.kind(name)!;
    const r = programs.load(src);
    if (!r.ok) throw new Error(`the sealed library's ${name} does not compile: ${r.diagnostics[0]?.message}`);
    const pin = r.program.cid;
    kinds.push({ name, pin });
    if (seen.has(pin)) continue;
    seen.add(pin);
    packages.push({ pin, pinSlug: pinSlugOf(pin), kind: src.kind, modules: src.modules, ...(src.law !== undefined ? { law: src.law } : {}) });
  }
  return { packages, kinds };
}

/**
 * Keeps the seed fields the kind's initial state has and can take, so a layout (or an avatar's
 * name) fits the library as it is; a field it cannot take is left at its initial value.
 */
export function fitSeed(
  programs: Programs,
  src: PackageSource,
  seed: Record<string, unknown> | undefined,
  options: KernelOptions,
  clock: number,
): Record<string, unknown> | undefined {
  if (!seed) return undefined;
  const r = programs.load(src);
  if (!r.ok) return undefined;
  const program = r.program;
  const init = program.initial(options.budget, { caller: TOWN, owner: TOWN, self: '', now: clock });
  if (!init.ok || init.state.tag !== 'record') return undefined;
  const out: Record<string, unknown> = {};
  for (const f of init.state.fields) {
    if (!Object.hasOwn(seed, f.name)) continue;
    const one = applySeed(init.state, { [f.name]: seed[f.name] }, program.stateType);
    if (isRefusal(one) || program.checkState(one) !== undefined) continue;
    out[f.name] = seed[f.name];
  }
  return Object.keys(out).length ? out : undefined;
}

export function genesisEntry(
  programs: Programs,
  cmd: { name: string; host: string; opener: string; layout?: TownLayout },
  clock: number,
  options: KernelOptions,
): Entry {
  const layout = cmd.layout ?? genesisTown;
  const { packages, kinds } = libraryPackages(programs);
  const world: World = blankWorld();
  for (const p of packages) world.packages.set(p.pin, p);
  for (const k of kinds) world.kinds.set(k.name, k.pin);
  const turn = new Turn({ world, programs, options, clock, height: 0, principal: TOWN, caller: TOWN, depth: 0, run: 0 });
  for (const c of layout.cards) {
    const src = programs.kind(c.kind);
    if (!src) throw new Error(`genesis: the library has no kind ${c.kind} (for ${c.id})`);
    try {
      turn.make(src, { id: c.id, maker: TOWN, owner: c.owner ?? TOWN, place: c.place, seed: fitSeed(programs, src, c.seed, options, clock), offer: false });
    } catch (e) {
      if (e instanceof Refused) throw new Error(`genesis: ${c.id} (${c.kind}) was refused: ${e.refusal.class} ${e.refusal.reason ?? ''}`);
      throw e;
    }
  }
  const effects = checkLaw(turn);
  return seal({
    height: 0,
    clock,
    kind: 'genesis',
    principal: TOWN,
    world: { name: cmd.name, host: cmd.host, opener: cmd.opener, entrance: layout.entrance },
    packages,
    kinds,
    made: effects.made,
    receipt: {
      status: 'done',
      line: `${cmd.name} was founded: ${effects.made.length} cards, ${kinds.length} kinds`,
      revealed: [],
      offers: [],
      usage: { ...turn.usage },
      object: cmd.name,
      method: 'genesis',
    },
  });
}

export function emptyEntry(programs: Programs, cmd: { name: string; host: string; opener: string }, clock: number): Entry {
  const { packages, kinds } = libraryPackages(programs);
  return seal({
    height: 0,
    clock,
    kind: 'genesis',
    principal: cmd.opener,
    world: { name: cmd.name, host: cmd.host, opener: cmd.opener, entrance: '' },
    packages,
    kinds,
    receipt: {
      status: 'done',
      line: `${nameOf(cmd.opener)} opened ${cmd.name}, empty but for the library`,
      revealed: [],
      offers: [],
      usage: zero(),
      object: cmd.name,
      method: 'empty',
    },
  });
}

/** A fork of `source` as it stands, carrying only the cards `forker` may view (and their code). */
export function forkEntry(source: World, forker: string, name: string, clock: number): Entry {
  const cards = [...source.cards.values()].filter((c) => canSee(c, forker)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const kinds = [...source.kinds].map(([k, pin]) => ({ name: k, pin })).sort((a, b) => (a.name < b.name ? -1 : 1));
  const pins = new Set<string>([...kinds.map((k) => k.pin), ...cards.map((c) => c.pin)]);
  const packages = [...pins]
    .sort()
    .map((p) => source.packages.get(p))
    .filter((p): p is Package => p !== undefined);
  const carried = new Set(cards.map((c) => c.id));
  const avatars = [...source.avatars]
    .filter(([, id]) => carried.has(id))
    .map(([principal, object]) => ({ principal, object }))
    .sort((a, b) => (a.principal < b.principal ? -1 : 1));
  return seal({
    height: 0,
    clock,
    kind: 'fork',
    principal: forker,
    world: { name, host: source.host, opener: forker, entrance: carried.has(source.entrance) ? source.entrance : '' },
    from: { world: source.name, height: source.height },
    packages,
    kinds,
    made: cards,
    ...(avatars.length ? { avatars } : {}),
    receipt: {
      status: 'done',
      line: `${nameOf(forker)} forked ${source.name} at height ${source.height}: ${cards.length} cards`,
      revealed: [],
      offers: [],
      usage: zero(),
      object: name,
      method: 'fork',
    },
  });
}

/**
 * A fork that carries nothing: it names `source` and the height it stood at, and the forked
 * world reads through to it as it stood there (history.ts: `forkBase`), so the entry is the same
 * size whatever the size of the world forked. `source` is the world as the forker may see it.
 */
export function throughForkEntry(source: World, forker: string, name: string, clock: number): Entry {
  return seal({
    height: 0,
    clock,
    kind: 'fork',
    principal: forker,
    world: { name, host: source.host, opener: forker, entrance: source.cards.has(source.entrance) ? source.entrance : '' },
    from: { world: source.name, height: source.height, through: true },
    receipt: {
      status: 'done',
      line: `${nameOf(forker)} forked ${source.name} at height ${source.height}`,
      revealed: [],
      offers: [],
      usage: zero(),
      object: name,
      method: 'fork',
    },
  });
}
