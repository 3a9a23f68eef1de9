/**
 * The cards projection: every card of every world as a document, with who may see it, its
 * newest lines and the names of its methods; and every package (pinned code) with what its
 * program offers (methods and their forms, law clauses with their readings, wants, rules).
 *
 *   cards.cards     _id `<world> <card id>`
 *   cards.packages  _id `<pin>` (content-addressed: the same in every world); a package a
 *                   scratch world brought that no world had shown before is that world's alone,
 *                   _id `<world> <pin>` with its `world`, and goes when the world expires: its
 *                   journal is deleted then, so a rebuild never meets it, and the live read model
 *                   must not keep what a rebuild would not make
 *
 * Idempotent: a card is only written by an entry that moves it past the version it holds, and a
 * package never changes once written.
 */
import type { Card, Entry, Package, Write } from '../cards/kernel/entry.js';
import type { Programs } from '../cards/kernel/programs.js';
import { limits } from '../contract/limits.js';
import type { Doc, Unit } from '../stores/read-store.js';
import type { TypedData } from '../contract/typed.js';
import type { FormField, LawClause, RuleInfo, WantInfo } from '../cards/program.js';
import type { StoredEntry } from '../events/world.js';
import { DocBatch, worldKey, worldProjection } from './entries.js';
import type { Projection } from './projection.js';
import { readModel } from './read-model.js';

/** The card reply shows the newest eight lines; the read model keeps no more. */
export const linesOnCard = limits.cardLinesOnCardReply;

export interface CardDoc extends Doc {
  world: string;
  id: string;
  kind: string;
  pin: string;
  pinSlug: string;
  state: TypedData;
  version: number;
  owner: string;
  maker: string;
  place: string;
  visibility: Card['visibility'];
  lent: string[];
  /** Who may see it: `*` for everyone, else the principals (owner, list, lent). */
  readers: string[];
  /** Newest lines, newest last. */
  lines: string[];
  born: number;
  /** Height of the last entry that changed it. */
  height: number;
  /** Names of the spells it hears (the world listing shows them beside its id). */
  methods: string[];
}

export interface MethodDoc {
  name: string;
  kind: 'spell' | 'view' | 'receive';
  signature: string;
  template?: string;
  form?: FormField[];
}

export interface PackageDoc extends Doc {
  /** The scratch world that brought it, when it is that world's alone (see the top). */
  world?: string;
  pin: string;
  pinSlug: string;
  kind: string;
  modules: { name: string; source: string }[];
  /** Law text given beside the modules, if any. */
  law?: string;
  compiled: boolean;
  stateType: string;
  methods: MethodDoc[];
  clauses: LawClause[];
  wants: WantInfo[];
  rules: RuleInfo[];
}

/** The cards read model and its collections, as the projection and its readers name them. */
export const cardsModel = readModel('cards');
/** A card's state is kept as JSON text: its nesting grows with the data (read-model.ts). */
export const cardDocs = cardsModel.collection<CardDoc>('cards', { encoded: ['state'] });
export const packageDocs = cardsModel.collection<PackageDoc>('packages');

export function readersOf(card: Pick<Card, 'visibility' | 'owner' | 'lent'>): string[] {
  if (card.visibility === 'everyone') return ['*'];
  const list = card.visibility === 'owner' ? [] : card.visibility;
  return [...new Set([card.owner, ...list, ...card.lent].filter((p) => p !== ''))].sort();
}

/** What a package's program offers, as plain data (derived once per pin). */
export function packageDoc(pkg: Package, programs: Programs): PackageDoc {
  const base = {
    _id: pkg.pin,
    pin: pkg.pin,
    pinSlug: pkg.pinSlug,
    kind: pkg.kind,
    modules: pkg.modules.map((m) => ({ name: m.name, source: m.source })),
    ...(pkg.law !== undefined ? { law: pkg.law } : {}),
  };
  const r = programs.load({ kind: pkg.kind, modules: pkg.modules, ...(pkg.law !== undefined ? { law: pkg.law } : {}) }, pkg.pin);
  if (!r.ok) return { ...base, compiled: false, stateType: '', methods: [], clauses: [], wants: [], rules: [] };
  const p = r.program;
  return {
    ...base,
    compiled: true,
    stateType: p.stateType,
    methods: p.methods.map((m) => ({
      name: m.name,
      kind: m.kind,
      signature: m.signature,
      ...(m.template !== undefined ? { template: m.template } : {}),
      ...(m.form !== undefined ? { form: m.form.map((f) => ({ name: f.name, form: { ...f.form }, optional: f.optional })) } : {}),
    })),
    clauses: p.law.map((c) => ({ name: c.name, reading: c.reading, text: c.text })),
    wants: p.wants.map((w) => ({ name: w.name, reading: w.reading })),
    rules: (p.rules ?? []).map((x) => ({ name: x.name, text: x.text })),
  };
}

export const spellNames = (pkg: PackageDoc | undefined): string[] => (pkg?.methods ?? []).filter((m) => m.kind !== 'view').map((m) => m.name);

/** A card's document as the projection writes it (and a fork reading through builds it at read time). */
export function cardDoc(world: string, card: Card, height: number, pkg: PackageDoc | undefined): CardDoc {
  return {
    _id: worldKey(world, card.id),
    world,
    id: card.id,
    kind: card.kind,
    pin: card.pin,
    pinSlug: card.pinSlug,
    state: card.state,
    version: card.version,
    owner: card.owner,
    maker: card.maker,
    place: card.place,
    visibility: card.visibility,
    lent: card.lent,
    readers: readersOf(card),
    lines: card.lines.slice(-linesOnCard),
    born: card.born,
    height,
    methods: spellNames(pkg),
  };
}

function written(doc: CardDoc, w: Write, height: number, pkg: (pin: string) => PackageDoc | undefined): CardDoc {
  const next: CardDoc = { ...doc, version: w.version, height };
  if (w.state !== undefined) next.state = w.state;
  if (w.kind !== undefined) next.kind = w.kind;
  if (w.pin !== undefined) {
    next.pin = w.pin;
    next.methods = spellNames(pkg(w.pin));
  }
  if (w.pinSlug !== undefined) next.pinSlug = w.pinSlug;
  if (w.owner !== undefined) next.owner = w.owner;
  if (w.visibility !== undefined) next.visibility = w.visibility;
  if (w.lent !== undefined) next.lent = w.lent;
  if (w.place !== undefined) next.place = w.place;
  if (w.say?.length) next.lines = [...doc.lines, ...w.say].slice(-linesOnCard);
  next.readers = readersOf(next);
  return next;
}

export function cardsProjection(programs: Programs): Projection {
  /**
   * Packages never change: what was read or derived once is kept (bounded). Only what a unit
   * that COMMITTED read or wrote: a unit's work may run again after its first run was thrown
   * away (MongoDB's withTransaction does after a WriteConflict), and a package remembered by
   * the run thrown away would never be written by the run that commits.
   */
  const known = new Map<string, PackageDoc>();
  /**
   * The packages this unit has read or written (one map however many folds and carries it runs:
   * a carry's later parts hold cards of packages its first part brought), kept once it commits.
   */
  const units = new WeakMap<Unit, Map<string, PackageDoc>>();
  const learning = (unit: Unit) => {
    let learnt = units.get(unit);
    if (learnt) return learnt;
    const mine = new Map<string, PackageDoc>();
    units.set(unit, mine);
    unit.onCommit(() => {
      for (const p of mine.values()) {
        if (known.size > 4096) known.clear();
        known.set(p._id, p);
      }
    });
    learnt = mine;
    return learnt;
  };
  /** The ids a package of `world` may have: a scratch world's own first, then the shared one. */
  const keysOf = (world: string, pin: string) => (isScratch(world) ? [worldKey(world, pin), pin] : [pin]);
  /** A package of `world` known, or read or made by this unit. */
  const packageOf = (world: string, learnt: Map<string, PackageDoc>) => (pin: string) => {
    for (const k of keysOf(world, pin)) {
      const doc = known.get(k) ?? learnt.get(k);
      if (doc) return doc;
    }
    return undefined;
  };

  async function fold(entries: StoredEntry[], unit: Unit): Promise<void> {
    const learnt = learning(unit);
    const cards = new DocBatch(cardDocs.in(unit));
    const packages = new DocBatch(packageDocs.in(unit));
    const ids: string[] = [];
    const pins = new Set<string>();
    const want = (world: string, pin: string) => {
      for (const k of keysOf(world, pin)) pins.add(k);
    };
    for (const { world, entry } of entries) {
      for (const p of entry.packages ?? []) want(world, p.pin);
      for (const c of entry.made ?? []) {
        ids.push(worldKey(world, c.id));
        want(world, c.pin);
      }
      for (const w of entry.writes ?? []) {
        ids.push(worldKey(world, w.id));
        if (w.pin !== undefined) want(world, w.pin);
      }
    }
    await cards.load(ids);
    const unknownPins = [...pins].filter((p) => !known.has(p));
    await packages.load(unknownPins);
    for (const pin of unknownPins) {
      const doc = packages.get(pin);
      if (doc) learnt.set(pin, doc);
    }
    for (const { world, entry } of entries) {
      const pkg = packageOf(world, learnt);
      for (const p of entry.packages ?? []) {
        if (pkg(p.pin)) continue;
        const shared = packageDoc(p, programs);
        const doc = isScratch(world) ? { ...shared, _id: worldKey(world, p.pin), world } : shared;
        packages.set(doc);
        learnt.set(doc._id, doc);
      }
      foldCards(world, entry, cards, pkg);
    }
    await packages.flush();
    await cards.flush();
  }

  /**
   * A carry: the world's cards are its present's, each at the height of the part that holds it
   * (the height of the entry that last changed it lies in the archive), and every package it
   * holds is known (packages come before cards in a carry's parts).
   */
  async function carry({ world, entry }: StoredEntry, unit: Unit): Promise<void> {
    const present = entry.carried!.present;
    const learnt = learning(unit);
    const packages = new DocBatch(packageDocs.in(unit));
    const pins = present.packages.flatMap((p) => keysOf(world, p.pin)).filter((p) => !known.has(p));
    await packages.load(pins);
    for (const pin of pins) {
      const doc = packages.get(pin);
      if (doc) learnt.set(pin, doc);
    }
    const pkg = packageOf(world, learnt);
    for (const p of present.packages) {
      if (pkg(p.pin)) continue;
      const shared = packageDoc(p, programs);
      const doc = isScratch(world) ? { ...shared, _id: worldKey(world, p.pin), world } : shared;
      packages.set(doc);
      learnt.set(doc._id, doc);
    }
    await packages.flush();
    const cards = cardDocs.in(unit);
    // the carry entry replaces the world's cards; its continuation entries add theirs
    if (!entry.carried!.part) await cards.deleteMany({ world });
    for (let i = 0; i < present.cards.length; i += 1000) {
      await cards.putMany(present.cards.slice(i, i + 1000).map((c) => cardDoc(world, c, entry.height, pkg(c.pin))));
    }
  }

  return worldProjection({
    name: cardsModel.name,
    collections: [cardDocs.name, packageDocs.name],
    indexes: [
      { collection: cardDocs.name, spec: { keys: { world: 1, id: 1 }, name: 'world_id' } },
      { collection: cardDocs.name, spec: { keys: { world: 1, place: 1 }, name: 'world_place' } },
      { collection: packageDocs.name, spec: { keys: { world: 1 }, name: 'world' } },
    ],
    // Bump when `fold` (or cardDoc, written, packageDoc) changes what it writes.
    // 2: an expired scratch world's documents are deleted (ScratchExpired).
    // 3: a package a scratch world brought first is that world's own, and goes with it.
    // 4: the state is kept as JSON text (a deep state reached MongoDB's 100 levels).
    // 5: a carry entry lays the carried present's cards (at its height) over the world's.
    version: 5,
    perWorld: [cardDocs.name, packageDocs.name],
    fold,
    // A dropped read model holds no package: every one is written again.
    reset: () => known.clear(),
    carry,
  });
}

const isScratch = (world: string) => world.startsWith('scratch.');

function foldCards(world: string, entry: Entry, cards: DocBatch<CardDoc>, pkg: (pin: string) => PackageDoc | undefined): void {
  for (const card of entry.made ?? []) {
    const key = worldKey(world, card.id);
    const have = cards.get(key);
    if (have && have.version >= card.version && have.born === card.born) continue;
    cards.set(cardDoc(world, card, entry.height, pkg(card.pin)));
  }
  for (const w of entry.writes ?? []) {
    const doc = cards.get(worldKey(world, w.id));
    if (!doc || doc.version >= w.version) continue; // applied already (or a card we never saw made)
    cards.set(written(doc, w, entry.height, pkg));
  }
}
