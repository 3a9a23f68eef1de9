/**
 * The journal entry: the one stored event a world is made of. Everything `evolve` needs is in
 * it, so replaying a journal never runs card code. Codecs here decode stored events at the
 * store boundary; the TypeScript types are derived from them.
 */
import * as t from 'io-ts';
import { TypedDataC } from '../../contract/typed.js';

export const UsageC = t.type({ ticks: t.number, heap: t.number, bytes: t.number });

/** Who may see a card: everyone, its owner alone, or the principals listed (the owner always). */
export const VisibilityC = t.union([t.literal('everyone'), t.literal('owner'), t.array(t.string)]);
export type Visibility = t.TypeOf<typeof VisibilityC>;

export const ModuleC = t.type({ name: t.string, source: t.string });

/** The code a card runs: modules plus law text, pinned by the compiled program's content id. */
export const PackageC = t.intersection([t.type({ pin: t.string, pinSlug: t.string, kind: t.string, modules: t.array(ModuleC) }), t.partial({ law: t.string })]);
export type Package = t.TypeOf<typeof PackageC>;

export const CardC = t.type({
  id: t.string,
  /** The module that programs it (a library kind name, or the module a scratch card was made from). */
  kind: t.string,
  pin: t.string,
  pinSlug: t.string,
  state: TypedDataC,
  version: t.number,
  /** A principal; '' for nobody (adoptable), 'town' for the town's own cards. */
  owner: t.string,
  maker: t.string,
  /** The room it lies in or the card carrying it; '' for a card that is nowhere (a room). */
  place: t.string,
  visibility: VisibilityC,
  /** Principals the owner lent it to (they see it even when it is not public). */
  lent: t.array(t.string),
  /** Narration, newest last, at most `linesKept`. */
  lines: t.array(t.string),
  /** Height of the entry that made it. */
  born: t.number,
});
export type Card = t.TypeOf<typeof CardC>;

/** A change to an existing card; absent fields are unchanged; `say` lines are appended. */
export const WriteC = t.intersection([
  t.type({ id: t.string, version: t.number }),
  t.partial({
    state: TypedDataC,
    kind: t.string,
    pin: t.string,
    pinSlug: t.string,
    owner: t.string,
    visibility: VisibilityC,
    lent: t.array(t.string),
    place: t.string,
    say: t.array(t.string),
  }),
]);
export type Write = t.TypeOf<typeof WriteC>;

export const OfferC = t.type({ principal: t.string, object: t.string, kind: t.string, text: t.string });
export type Offer = t.TypeOf<typeof OfferC>;

/** A send queued by a turn, delivered later as an entry of its own. */
export const SendC = t.type({
  /** `<height>.<n>`: the entry that queued it and its place among that entry's sends. */
  id: t.string,
  from: t.string,
  to: t.string,
  method: t.string,
  argument: TypedDataC,
  /** 1 for a send queued by a guest's turn, one more for each delivery in between. */
  depth: t.number,
  /** The run it belongs to: the height of the guest's turn that started the cascade. */
  run: t.number,
  /** The guest whose turn started the run: delivery sees what they see, makes are offered to them. */
  principal: t.string,
});
export type Send = t.TypeOf<typeof SendC>;

export const QuietC = t.type({ principal: t.string, until: t.number, reading: t.string, by: t.string });
export type Quiet = t.TypeOf<typeof QuietC>;

const RefusalDetail = {
  clause: t.string,
  reason: t.string,
  reading: t.string,
  hint: t.string,
  expected: t.string,
  next: t.number,
  original: t.string,
  root: t.string,
};

/** The receipt as journaled (its content id and slug are those of the entry holding it). */
export const ReceiptBodyC = t.intersection([
  t.type({
    status: t.union([t.literal('done'), t.literal('refused')]),
    line: t.string,
    revealed: t.array(t.string),
    offers: t.array(t.string),
    usage: UsageC,
  }),
  t.partial({
    class: t.string,
    hintKind: t.string,
    object: t.string,
    method: t.string,
    result: TypedDataC,
    ...RefusalDetail,
  }),
]);
export type ReceiptBody = t.TypeOf<typeof ReceiptBodyC>;

/** What was asked, kept for the receipt's whole entry and the chronicle. */
export const RequestC = t.intersection([
  t.type({ object: t.string, method: t.string }),
  t.partial({
    /** The plain JSON fields as canonical JSON text (plain JSON may hold what DAG-CBOR will not). */
    fields: t.string,
    spell: t.string,
    argument: TypedDataC,
    if: t.array(t.type({ object: t.string, version: t.number })),
  }),
]);
export type Request = t.TypeOf<typeof RequestC>;

export const EntryKindC = t.union([
  t.literal('genesis'),
  t.literal('fork'),
  t.literal('arrival'),
  t.literal('turn'),
  t.literal('delivery'),
  t.literal('create'),
  t.literal('cite'),
  t.literal('carry'),
]);
export type EntryKind = t.TypeOf<typeof EntryKindC>;

export const WorldInfoC = t.type({
  name: t.string,
  host: t.string,
  /** The principal with moderation powers (`quiet`): the town's operator, a scratch world's owner. */
  opener: t.string,
  /** The room where arriving guests' avatars stand ('' for none). */
  entrance: t.string,
});
export type WorldInfo = t.TypeOf<typeof WorldInfoC>;

/** One archived epoch of a carried past (past.ts `PastEpoch`). */
export const PastEpochC = t.type({ epoch: t.number, from: t.number, to: t.number, archive: t.string, sha256: t.string });

/**
 * What a carry entry carries: the world's present as it stands (every Map of the World but
 * receipts, slugs and intents) and its past as the three tables of past.ts, base64.
 */
export const CarriedC = t.intersection([
  t.type({
    /** The epoch this entry begins. */
    epoch: t.number,
    /** The archive of the epoch before: its file name, SHA-256, final height and present digest. */
    archive: t.type({ file: t.string, sha256: t.string, height: t.number, digest: t.string }),
    past: t.type({ epochs: t.array(PastEpochC), digests: t.string, slugs: t.string, intents: t.string }),
    present: t.type({
      world: WorldInfoC,
      cards: t.array(CardC),
      packages: t.array(PackageC),
      kinds: t.array(t.type({ name: t.string, pin: t.string })),
      avatars: t.array(t.type({ principal: t.string, object: t.string })),
      pending: t.array(SendC),
      runs: t.array(t.type({ run: t.number, work: t.number, storage: t.number, waiting: t.number })),
      /** Each kept offer with the content id and slug of the entry that made it (for the offers read model). */
      offers: t.array(
        t.type({ principal: t.string, offers: t.array(t.intersection([OfferC, t.type({ height: t.number }), t.partial({ cid: t.string, slug: t.string })])) }),
      ),
      quiet: t.array(QuietC),
      turns: t.array(t.type({ principal: t.string, hour: t.number, count: t.number })),
      seen: t.array(t.type({ principal: t.string, clock: t.number })),
    }),
  }),
  /**
   * A carry too large for one append is split: part 0 is the carry entry, parts 1 to `parts` - 1
   * the continuation entries right after it, each a slice of the present and of the past's
   * tables, in order (kernel/carry.ts `carryEntries`). Absent: one part.
   */
  t.partial({ part: t.number, parts: t.number }),
]);
export type Carried = t.TypeOf<typeof CarriedC>;

export const EntryBodyC = t.intersection([
  t.type({
    height: t.number,
    clock: t.number,
    kind: EntryKindC,
    /** The guest acting, the sending card for a delivery, 'town' for the host. */
    principal: t.string,
    receipt: ReceiptBodyC,
  }),
  t.partial({
    /** genesis and fork: the world's name, host, opener and entrance. */
    world: WorldInfoC,
    intent: t.type({ intent: t.string, fingerprint: t.string }),
    request: RequestC,
    packages: t.array(PackageC),
    /** genesis, fork, empty: the library kinds by name. */
    kinds: t.array(t.type({ name: t.string, pin: t.string })),
    made: t.array(CardC),
    writes: t.array(WriteC),
    offers: t.array(OfferC),
    sends: t.array(SendC),
    /** A delivery: the id of the send it consumed. */
    consumed: t.string,
    /** A delivery: what the run has spent after it. */
    spent: t.type({ run: t.number, work: t.number, storage: t.number }),
    quiet: QuietC,
    avatars: t.array(t.type({ principal: t.string, object: t.string })),
    /** A cite: a scratch entry kept in this world under the citer's name (the whole entry, as canonical JSON). */
    cited: t.type({ world: t.string, cid: t.string, slug: t.string, height: t.number, entry: t.string }),
    /**
     * A fork: the world it was forked from and the height it stood at. `through`: the fork
     * carries nothing and reads through to that world as it stood there (history.ts); without
     * it the fork entry carries what the forker may view (`made`, `packages`, `kinds`).
     */
    from: t.intersection([t.type({ world: t.string, height: t.number }), t.partial({ through: t.boolean })]),
    /** A carry: the first entry of an epoch, holding the world as it stood and its past (carry.ts). */
    carried: CarriedC,
  }),
]);
export type EntryBody = t.TypeOf<typeof EntryBodyC>;

/** An entry as stored: the body plus its content id (CID of the canonical body) and slug. */
export const EntryC = t.intersection([EntryBodyC, t.type({ cid: t.string, slug: t.string })]);
export type Entry = t.TypeOf<typeof EntryC>;
