/**
 * One turn being decided: a working set of cards over a world that is never touched, and the
 * effects the turn has gathered so far (writes, cards made, packages, lines, offers, sends).
 * Acts (a method run, a host spell, the acts of a plan) apply to the working set; the law stage
 * (turn/law.ts) checks the law on everything written and turns the working set into the parts
 * of one entry. Any refusal is thrown as `Refused` and rolls the whole turn back (nothing of it
 * is kept).
 */
import { createHash } from 'node:crypto';
import { limits } from '../../contract/limits.js';
import { shownPrincipal, type Budget, type CallContext, type MakeEffect, type Program, type RunRefusal, type SendEffect, type Usage } from '../program.js';
import type { TypedData } from '../../contract/typed.js';
import type { Card, Offer, Package, Quiet, Send, Write } from './entry.js';
import type { KernelOptions } from './options.js';
import type { Carried, PackageSource, Programs } from './programs.js';
import { badSpell, lawRefusal, refusedReason, runRefusal, type Refusal } from './refusal.js';
import { applySeed, isRefusal } from './seed.js';
import { slugOfDigest } from './content-id.js';
import { canSee, type World } from './world.js';
import { avatarGuest, moveRefusal, within } from './turn/move.js';

export class Refused extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.reason ?? refusal.class);
  }
}

export const refuse = (r: Refusal): never => {
  throw new Refused(r);
};

export interface TurnScope {
  world: World;
  programs: Programs;
  options: KernelOptions;
  clock: number;
  /** Height of the entry being decided. */
  height: number;
  /** The guest whose turn this is (for a delivery: the guest whose turn started the run). */
  principal: string;
  /** Who the card code sees as `caller`: the guest, or the sending card for a delivery. */
  caller: string;
  /** Depth of the send being delivered; 0 for a guest's own turn. */
  depth: number;
  /** The run sends queued now belong to. */
  run: number;
  /** A delivered send: card code acting, so no host spell may run (a card is no guest's deputy). */
  delivery?: boolean;
}

export interface TurnEffects {
  made: Card[];
  writes: Write[];
  packages: Package[];
  offers: Offer[];
  sends: Send[];
  quiet?: Quiet;
}

const zeroUsage = (): Usage => ({ ticks: 0, heap: 0, bytes: 0 });

/** A principal as lines show it: a guest by its handle (`guest:town.example:ann` → `ann.town.example`). */
export const nameOf = (principal: string) => shownPrincipal(principal);

export function pinSlugOf(pin: string): string {
  return slugOfDigest(createHash('sha256').update(pin).digest());
}

export class Turn {
  // The working set below is read by the law stage (turn/law.ts), which turns it into the
  // entry's parts once the card has run; nothing else reaches into it.
  /** Working copies of every card the turn touched or made. */
  readonly working = new Map<string, Card>();
  /** The cards as they stood before the turn, for those it touched. */
  readonly before = new Map<string, Card>();
  readonly madeIds: string[] = [];
  readonly reprogrammed = new Set<string>();
  /** Rules to run once the law has held: an act's before and after, in act order. */
  private readonly ruleRuns: { id: string; program: Program; before: TypedData; after: TypedData }[] = [];
  readonly newPackages = new Map<string, Package>();
  /** Lines said per card this turn. */
  readonly says = new Map<string, string[]>();
  readonly lines: string[] = [];
  readonly offers: Offer[] = [];
  readonly sends: Send[] = [];
  readonly revealed: string[] = [];
  readonly usage: Usage = zeroUsage();
  /** Cards read, with the version each stood at: the roots a `try` reports. */
  readonly roots = new Map<string, number>();
  quiet?: Quiet;
  result?: TypedData;

  constructor(readonly scope: TurnScope) {}

  get world(): World {
    return this.scope.world;
  }

  card(id: string): Card | undefined {
    return this.working.get(id) ?? this.world.cards.get(id);
  }

  /** The card as this turn's guest sees it (unseen is absent). */
  visible(id: string): Card | undefined {
    const card = this.card(id);
    return card && canSee(card, this.scope.principal) ? card : undefined;
  }

  isMade(id: string): boolean {
    return this.madeIds.includes(id);
  }

  read(id: string): Card {
    const card = this.card(id);
    if (!card) return refuse({ class: 'unknownObject', reason: `no card ${id}`, object: id });
    if (!this.isMade(id) && !this.roots.has(id)) this.roots.set(id, this.before.get(id)?.version ?? card.version);
    return card;
  }

  private touch(id: string): Card {
    const card = this.read(id);
    if (!this.working.has(id)) {
      this.before.set(id, card);
      this.working.set(id, card);
    }
    return card;
  }

  update(id: string, change: Partial<Card>): Card {
    const card = { ...this.touch(id), ...change };
    if (change.state) {
      // a card of earlier code that keeps its room in its state: followed only to a card that is there
      const room = roomOf(change.state);
      if (room !== undefined && this.visible(room) && !within(this, room, id)) card.place = room;
    }
    this.working.set(id, card);
    return card;
  }

  say(id: string, line: string): void {
    const list = this.says.get(id);
    if (list) list.push(line);
    else this.says.set(id, [line]);
    this.lines.push(line);
  }

  package(pin: string): Package | undefined {
    return this.newPackages.get(pin) ?? this.world.packages.get(pin);
  }

  /** The program last looked up, by pin (a turn mostly runs one card, asking for its program several times). */
  private lastPin?: string;
  private lastProgram?: Program;

  programOf(card: Card): Program {
    if (card.pin === this.lastPin) return this.lastProgram!;
    const pkg = this.package(card.pin);
    if (!pkg) return refuse({ class: 'evaluation', reason: `the code of ${card.id} (pin ${card.pinSlug}) is not in this world`, object: card.id });
    const r = this.scope.programs.load(pkg, pkg.pin);
    if (!r.ok)
      return refuse({
        class: 'evaluation',
        reason: `the code of ${card.id} no longer compiles: ${r.diagnostics[0]?.message ?? 'unknown error'}`,
        object: card.id,
      });
    this.lastPin = card.pin;
    this.lastProgram = r.program;
    return r.program;
  }

  remaining(): Budget {
    const b = this.scope.options.budget;
    return {
      ticks: Math.max(0, b.ticks - this.usage.ticks),
      heap: Math.max(0, b.heap - this.usage.heap),
      bytes: Math.max(0, b.bytes - this.usage.bytes),
    };
  }

  spend(u: Usage): void {
    this.usage.ticks += u.ticks;
    this.usage.heap += u.heap;
    this.usage.bytes += u.bytes;
  }

  ctx(card: Card): CallContext {
    return { caller: this.scope.caller, owner: card.owner, self: card.id, now: this.scope.clock, place: card.place };
  }

  /** Runs a method of a card and applies what it returns to the working set. */
  call(id: string, method: string, args: TypedData, caller = this.scope.caller): void {
    const card = this.touch(id);
    const program = this.programOf(card);
    const ctx: CallContext = { caller, owner: card.owner, self: card.id, now: this.scope.clock, place: card.place };
    const r = safely(() => program.call(method, card.state, args, ctx, this.remaining()));
    this.spend(r.usage);
    if (!r.ok) return refuse(runRefusal(r.refusal, id));
    this.update(id, { state: r.state });
    for (const line of r.says) this.say(id, line);
    this.result = r.result;
    for (const m of r.moves) this.move(id, m.thing, m.to);
    this.queue(id, r.sends);
    for (const m of r.makes) this.makeFromCard(id, m);
    if (program.rules?.length) this.ruleRuns.push({ id, program, before: card.state, after: r.state });
  }

  /**
   * Rules react after an act: each fires (or not) on the new state; what they say is narrated.
   * They run after the law has been checked (turn/law.ts), so the law's outcome comes first and
   * is the same whether or not a rule would fail too.
   */
  runRules(): void {
    for (const { id, program, before, after } of this.ruleRuns) this.runRulesOf(id, program, before, after);
    this.ruleRuns.length = 0;
  }

  private runRulesOf(id: string, program: Program, before: TypedData | undefined, after: TypedData): void {
    const card = this.card(id)!;
    const r = safely(() => program.runRules(before, after, this.ctx(card), this.remaining()));
    this.spend(r.usage);
    if (!r.ok) return refuse(runRefusal(r.refusal, id));
    for (const f of r.rules) this.revealed.push(`rule ${f.name} ${f.fired ? 'fired' : 'did not fire'} on ${id}`);
    for (const line of r.says) this.say(id, line);
  }

  /** `move thing to place` by the card `mover`, held to the place law (turn/move.ts). */
  move(mover: string, thing: string, to: string): void {
    const refusal = moveRefusal(this, mover, thing, to);
    if (refusal) return refuse(refusal);
    const into = this.read(to);
    const card = this.card(thing)!;
    const guest = avatarGuest(this.world.avatars, into);
    // come into a guest's avatar: it is theirs now (what nobody owns stays nobody's)
    const owner = guest && card.owner !== '' && guest !== card.owner ? guest : card.owner;
    this.update(thing, owner === card.owner ? { place: to } : { place: to, owner });
  }

  private queue(from: string, sends: SendEffect[]): void {
    for (const s of sends) {
      // A send goes to a card that exists and that the turn's guest may see, or the whole turn is
      // refused: a send into nothing would be dropped at delivery, after the turn said `done`.
      if (!this.visible(s.to)) refuse({ class: 'unknownObject', reason: `${from} sends ${s.method} to ${s.to}, and there is no card ${s.to}`, object: s.to });
      const depth = this.scope.depth + 1;
      this.sends.push({
        id: `${this.scope.height}.${this.sends.length}`,
        from,
        to: s.to,
        method: s.method,
        argument: s.argument,
        depth,
        run: this.scope.run,
        principal: this.scope.principal,
      });
      this.revealed.push(`${from} sent ${s.method} to ${s.to} (queued, depth ${depth})`);
    }
    const cap = this.scope.options.capacity.pending;
    if (this.world.pending.size + this.sends.length > cap) {
      refuse({ class: 'capacity', reason: `the queue of sends is full (${cap})`, object: from });
    }
  }

  private makeFromCard(maker: string, m: MakeEffect): void {
    const src = this.scope.programs.kind(m.kind);
    if (!src) return refuse({ class: 'evaluation', reason: `${maker} made a ${m.kind}, which is no kind of the library`, object: maker });
    this.make(src, { maker, near: maker, seed: m.seed });
  }

  /** A fresh id for a card of `kind`: `<kind>-<height>`, then `-2`, `-3` … within the turn. */
  freshId(kind: string): string {
    const stem = `${kind.replace(/[^A-Za-z0-9._:/-]/g, '') || 'card'}-${this.scope.height}`;
    let id = stem;
    for (let n = 2; this.card(id); n++) id = `${stem}-${n}`;
    return id;
  }

  /** Pins a package: compiles it and records it in the turn when the world does not hold it yet. */
  pin(src: PackageSource): { program: Program; pkg: Package } {
    const r = this.scope.programs.load(src);
    if (!r.ok) return refuse({ class: 'evaluation', reason: `${src.kind} does not compile: ${r.diagnostics[0]?.message ?? 'unknown error'}` });
    const pin = r.program.cid;
    let pkg = this.package(pin);
    if (!pkg) {
      pkg = { pin, pinSlug: pinSlugOf(pin), kind: src.kind, modules: src.modules, ...(src.law !== undefined ? { law: src.law } : {}) };
      this.newPackages.set(pin, pkg);
    }
    return { program: r.program, pkg };
  }

  /** Makes a card from a package, owned by the turn's guest and offered to them. */
  make(
    src: PackageSource,
    opts: {
      maker: string;
      near?: string;
      seed?: unknown;
      id?: string;
      visibility?: Card['visibility'];
      place?: string;
      owner?: string;
      offer?: boolean;
      compiled?: { program: Program; pkg: Package };
    },
  ): string {
    const cap = this.scope.options.capacity.cards;
    if (this.world.cards.size + this.madeIds.length + 1 > cap) return refuse({ class: 'capacity', reason: `this world holds its most cards (${cap})` });
    const { program, pkg } = opts.compiled ?? this.pin(src);
    const id = opts.id ?? this.freshId(src.kind);
    const owner = opts.owner ?? this.scope.principal;
    const ctx: CallContext = { caller: this.scope.caller, owner, self: id, now: this.scope.clock };
    const r = safely(() => program.initial(this.remaining(), ctx));
    this.spend(r.usage);
    if (!r.ok) return refuse(runRefusal(r.refusal, id));
    const state = applySeed(r.state, opts.seed, program.stateType);
    if (isRefusal(state)) return refuse({ ...state, object: id });
    // a seed is data entering the card: held to the state's bounds as initial()'s result is
    const outside = opts.seed === undefined ? undefined : program.checkState(state);
    if (outside !== undefined) return refuse(runRefusal({ class: 'cardRefused', clause: 'bounds', reading: outside }, id));
    const broken = program.checkLaw(undefined, state, ctx);
    if (broken) return refuse(lawRefusal(id, broken.name, broken.reading));
    const card: Card = {
      id,
      kind: pkg.kind,
      pin: pkg.pin,
      pinSlug: pkg.pinSlug,
      state,
      version: 1,
      owner,
      maker: opts.maker,
      place: this.placeOfNew(id, roomOf(state)) ?? opts.place ?? this.placeNear(opts.near),
      visibility: opts.visibility ?? 'everyone',
      lent: [],
      lines: [],
      born: this.scope.height,
    };
    this.working.set(id, card);
    this.madeIds.push(id);
    for (const line of r.says) this.say(id, line);
    if (opts.offer !== false) {
      this.offers.push({ principal: this.scope.principal, object: id, kind: pkg.kind, text: id });
      this.revealed.push(`made ${id} (${pkg.kind}), offered to ${nameOf(this.scope.principal)}`);
    } else this.revealed.push(`made ${id} (${pkg.kind})`);
    return id;
  }

  /** A made card of earlier code that names its room: it lies there only when that card is there. */
  private placeOfNew(id: string, room: string | undefined): string | undefined {
    return room !== undefined && room !== id && this.visible(room) ? room : undefined;
  }

  /** Made things go to the guest's avatar; without one they lie where the card that made them lies. */
  private placeNear(near: string | undefined): string {
    const avatar = this.world.avatars.get(this.scope.principal);
    if (avatar && this.card(avatar)) return avatar;
    if (near === undefined) return '';
    const card = this.card(near);
    return card ? card.place || card.id : '';
  }

  /**
   * Gives a card new code: the state carries over when its type is unchanged, goes through the
   * new code's `migrate` otherwise, and the result must keep the new law (else `lawClash`).
   */
  reprogram(id: string, src: PackageSource, hint: string): void {
    const card = this.touch(id);
    const old = this.programOf(card);
    const bytes = src.modules.reduce((n, m) => n + Buffer.byteLength(m.source), 0) + Buffer.byteLength(src.law ?? '');
    const tooBig = src.modules.find((m) => Buffer.byteLength(m.source) > limits.moduleBytes);
    if (tooBig || bytes > this.scope.options.packageBytes || src.modules.length > limits.modules) {
      return refuse({
        class: 'programRefused',
        clause: 'packageBytes',
        reason: tooBig
          ? `module ${tooBig.name} is over ${limits.moduleBytes} bytes`
          : `the package is over ${this.scope.options.packageBytes} bytes or ${limits.modules} modules`,
        object: id,
      });
    }
    const r = this.scope.programs.load(src);
    if (!r.ok) {
      const d = r.diagnostics[0];
      const clause = d?.stage === 'law' ? 'law syntax' : d?.stage === 'stateType' ? 'stateType' : d?.stage === 'migration' ? 'migration' : 'compile';
      return refuse({
        class: 'programRefused',
        clause,
        reason: d ? `${d.stage} ${d.module}:${d.line}:${d.column}: ${d.message}` : 'the package does not compile',
        object: id,
        ...(d?.hint ? { hint: d.hint } : {}),
      });
    }
    const program = r.program;
    const carried = this.scope.programs.reprogram
      ? this.scope.programs.reprogram(old, program, card.state, this.remaining())
      : carryState(old, program, card.state, this.remaining());
    this.spend(carried.usage);
    if (!carried.ok) {
      const d = carried.diagnostics?.[0];
      return refuse({
        class: 'programRefused',
        clause: carried.clause,
        reason: `${id} holds ${old.stateType}; ${src.kind} keeps ${program.stateType}: ${carried.reason}`,
        object: id,
        ...(d?.hint ? { hint: d.hint } : {}),
      });
    }
    const state = carried.state;
    const broken = program.checkLaw(undefined, state, this.ctx(card));
    if (broken)
      return refuse({
        ...badSpell('lawClash', `${id} as it stands breaks ${src.kind}'s law: ${refusedReason(broken.name, broken.reading)}`, hint),
        object: id,
      });
    const { pkg } = this.pin(src);
    this.update(id, { kind: pkg.kind, pin: pkg.pin, pinSlug: pkg.pinSlug, state });
    this.reprogrammed.add(id);
  }
}

/**
 * A card whose state has a `room` (an avatar) lies in that room: it moves by its own spells, so
 * the kernel's place follows the state. An empty room is no place.
 */
export function roomOf(state: TypedData): string | undefined {
  if (state.tag !== 'record') return undefined;
  const room = state.fields.find((f) => f.name === 'room')?.value;
  return room && room.tag === 'label' && room.value !== '' ? room.value : undefined;
}

/** Card code must not be able to crash a turn: a throw from the language becomes `evaluation`. */
function safely<T extends { ok: boolean }>(run: () => T): T | { ok: false; refusal: RunRefusal; usage: Usage } {
  try {
    return run();
  } catch (e) {
    return {
      ok: false,
      refusal: { class: 'evaluation', reason: `the card could not be run: ${e instanceof Error ? e.message : String(e)}` },
      usage: zeroUsage(),
    };
  }
}

/**
 * Carries a card's state to new code through the Program interface alone: the same state shape
 * carries over as it is (checked against the new type); another goes through the new code's
 * `migrate(old)`; with neither, the reprogram is refused loudly, never defaulted.
 */
export function carryState(from: Program, to: Program, state: TypedData, budget: Budget): Carried {
  const zero = zeroUsage();
  if (from.stateKey === to.stateKey) {
    const bad = to.checkState(state);
    return bad ? { ok: false, clause: 'stateType', reason: `the state does not fit: ${bad}`, usage: zero } : { ok: true, state, usage: zero };
  }
  if (!to.entries.includes('migrate'))
    return { ok: false, clause: 'stateType', reason: 'the new code defines no migrate(old) to carry the state over', usage: zero };
  const m = safely(() => to.runEntry('migrate', [state], budget));
  if (!m.ok) {
    const why = m.refusal.class === 'cardRefused' ? refusedReason(m.refusal.clause, m.refusal.reading) : m.refusal.reason;
    return { ok: false, clause: 'migration', reason: `migrate failed: ${why}`, usage: m.usage };
  }
  const bad = to.checkState(m.result);
  if (bad) return { ok: false, clause: 'migration', reason: `migrate built a state that does not fit: ${bad}`, usage: m.usage };
  return { ok: true, state: m.result, usage: m.usage };
}
