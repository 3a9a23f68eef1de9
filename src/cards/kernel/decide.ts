/**
 * decide(world, command, clock, programs, options) -> Outcome. Pure: the same world, command,
 * clock, programs and options give the same outcome, byte for byte; the world is never changed.
 *
 * A turn, in order (cards.md): intent (a repeat returns the first receipt; another request
 * under a used intent is `duplicateIdentity`), the opener's quiet and the hourly quota,
 * visibility (`unknownObject`), `if` roots (`moved`), method and argument (`noMethod`,
 * `typeMismatch`, `badSpell`), the run under the budget, law, and then one entry, or for a
 * `try` a report and nothing journaled.
 *
 * Not journaled: a repeat, `duplicateIdentity` (its intent is already spent on the first
 * request), `moved`, `quiet` and `quota` (nothing ran and the same intent may be resent once
 * they pass), and `try`. Every other refusal is an entry with its receipt.
 */
import type { Diagnostic, Module, Usage } from '../program.js';
import { TypedDataC, type TypedData } from '../typed.js';
import { castRequest, type TurnInput } from './cast.js';
import { contentId, fingerprint, fingerprintOfText, stableJson } from './content-id.js';
import { copied } from './copy.js';
import type { Entry, EntryBody, ReceiptBody, Request, Send } from './entry.js';
import { evolve } from './evolve.js';
import { OBJECT_ID } from './fields.js';
import { defaultOptions, type KernelOptions } from './options.js';
import type { PackageSource, Programs } from './programs.js';
import { hintKind, refusalLine, type Refusal } from './refusal.js';
import { nameOf, Refused, Turn, type TurnEffects, type TurnScope } from './turn.js';
import { canSee, hourMs, hourOf, intentKey, layered, turnsThisHour, visibleCard, type World } from './world.js';
import { limits } from '../../contract/limits.js';
import { emptyEntry, fitSeed, forkEntry, genesisEntry, type TownLayout } from './genesis.js';

export interface TurnCommand {
  kind: 'turn';
  principal: string;
  intent: string;
  object: string;
  method: string;
  fields?: unknown;
  spell?: string;
  argument?: unknown;
  if?: { object: string; version: number }[];
  try?: boolean;
}

/** Runs up to `max` queued sends (oldest first), each an entry of its own. */
export interface DeliverCommand {
  kind: 'deliver';
  max?: number;
}

/** The host's consequence of a guest's identity event: an avatar in the entrance room. */
export interface ArriveCommand {
  kind: 'arrive';
  principal: string;
  name: string;
}

export interface GenesisCommand {
  kind: 'genesis';
  name: string;
  host: string;
  opener: string;
  layout?: TownLayout;
}

/** An empty world with the sealed library (a scratch world without `from`). */
export interface EmptyCommand {
  kind: 'empty';
  name: string;
  host: string;
  opener: string;
}

/** A fork of `source` as it stands (the caller replays to the height wanted), carrying what `forker` may view. */
export interface ForkCommand {
  kind: 'fork';
  source: World;
  forker: string;
  name: string;
}

export interface CreateCommand {
  kind: 'create';
  principal: string;
  intent: string;
  object: string;
  source?: string;
  modules?: Module[];
  entry: string;
  law?: string;
  seed?: unknown;
}

export interface ReplCommand {
  kind: 'repl';
  principal: string;
  intent: string;
  source?: string;
  modules?: Module[];
  entry: string;
  arguments?: unknown[];
  fields?: unknown;
  argument?: unknown;
  /** Default `repl`. */
  object?: string;
}

/** Keeps a scratch receipt (its whole entry) in this world under the caller's name. */
export interface CiteCommand {
  kind: 'cite';
  principal: string;
  /** Default `cite:<cid>`. */
  intent?: string;
  /** The scratch world's name and the entry cited, as its journal holds it. */
  world: string;
  entry: Entry;
}

export interface CheckCommand {
  kind: 'check';
  source?: string;
  modules?: Module[];
  entry?: string;
}

export type Command =
  | TurnCommand
  | DeliverCommand
  | ArriveCommand
  | GenesisCommand
  | EmptyCommand
  | ForkCommand
  | CreateCommand
  | ReplCommand
  | CheckCommand
  | CiteCommand;

/** A receipt as a reply shows it; height, cid and slug are absent for a refusal nothing journaled. */
export type Receipt = ReceiptBody & { height?: number; cid?: string; slug?: string };

export interface TryReport extends ReceiptBody {
  writes: { object: string; version: number; state: TypedData }[];
  made: { object: string; kind: string; state: TypedData }[];
  fires: { to: string; method: string; argument: TypedData }[];
  opens: string[];
  roots: { object: string; version: number }[];
}

/** The host refused the request as malformed (HTTP 400 `hostRequest`); nothing was decided. */
export interface HostRequest {
  class: 'hostRequest';
  message: string;
  diagnostics?: Diagnostic[];
  stage?: string;
  module?: string;
  span?: { line: number; column: number; endLine: number; endColumn: number };
  hint?: string;
}

/** Where a receipt stands in its world's journal. */
export interface ReceiptRef {
  cid: string;
  slug: string;
  height: number;
}

export type Outcome =
  | { kind: 'journal'; entries: Entry[]; receipt: Receipt }
  /** The intent was spent on this very request: its first receipt, which the journal holds at `first.height`. */
  | { kind: 'repeat'; first: ReceiptRef }
  | { kind: 'refused'; receipt: Receipt }
  | { kind: 'try'; report: TryReport }
  | { kind: 'value'; value: TypedData; usage: Usage }
  | { kind: 'checked'; diagnostics: Diagnostic[] }
  | { kind: 'rejected'; error: HostRequest }
  | { kind: 'nothing'; reason: string };

/** An outcome as a caller is answered with: a repeat's first receipt read back from the journal. */
export type Answer = Exclude<Outcome, { kind: 'repeat' }> | { kind: 'repeat'; receipt: Receipt };

/**
 * The answer to an outcome. A repeat needs `first`: the entry at `outcome.first.height`, read from
 * the journal by the caller (the World keeps where a receipt is, not the receipt).
 */
export function answerOf(outcome: Outcome, first?: Entry): Answer {
  if (outcome.kind !== 'repeat') return outcome;
  const { cid, height } = outcome.first;
  if (first?.cid !== cid) throw new Error(`the journal holds no entry ${cid} at height ${height}, the first receipt of a repeated intent`);
  return { kind: 'repeat', receipt: receiptOf(first) };
}

export function decide(world: World, command: Command, clock: number, programs: Programs, options: KernelOptions = defaultOptions): Outcome {
  switch (command.kind) {
    case 'turn':
      return decideTurn(world, command, clock, programs, options);
    case 'deliver':
      return decideDeliver(world, Math.max(0, Math.min(command.max ?? limits.deliverPerCall, 10_000)), clock, programs, options);
    case 'arrive':
      return decideArrive(world, command, clock, programs, options);
    case 'genesis':
      return journal([genesisEntry(programs, command, clock, options)]);
    case 'empty':
      return journal([emptyEntry(programs, command, clock)]);
    case 'fork':
      return journal([forkEntry(command.source, command.forker, command.name, clock)]);
    case 'create':
      return decideCreate(world, command, clock, programs, options);
    case 'repl':
      return decideRepl(world, command, clock, programs, options);
    case 'check':
      return decideCheck(command, programs);
    case 'cite':
      return decideCite(world, command, clock);
  }
}

function decideCite(world: World, cmd: CiteCommand, clock: number): Outcome {
  const { cid, slug, ...body } = cmd.entry;
  if (contentId(body).cid !== cid) return { kind: 'rejected', error: { class: 'hostRequest', message: 'the cited entry does not match its content id' } };
  const intent = cmd.intent ?? `cite:${cid}`;
  const fp = fingerprint({ cite: { world: cmd.world, cid } });
  const repeat = intentStep(world, cmd.principal, intent, fp, cmd.world, 'cite');
  if (repeat) return repeat;
  const gate = gateStep(world, cmd.principal, clock, { ...defaultOptions, turnQuota: undefined }, cmd.world, 'cite');
  if (gate) return gate;
  return journal([
    seal({
      height: world.height,
      clock,
      kind: 'cite',
      principal: cmd.principal,
      intent: { intent, fingerprint: fp },
      request: { object: cmd.world, method: 'cite' },
      cited: { world: cmd.world, cid, slug, height: cmd.entry.height, entry: stableJson(cmd.entry) },
      receipt: {
        status: 'done',
        line: `${nameOf(cmd.principal)} cited ${slug} from ${cmd.world}: ${cmd.entry.receipt.line}`,
        revealed: [],
        offers: [],
        usage: zero(),
        object: cmd.world,
        method: 'cite',
      },
    }),
  ]);
}

/** Gives an entry body its content id and slug (a new object; the body is left as it was). */
export function seal(body: EntryBody): Entry {
  const { cid, slug } = contentId(body);
  return { ...body, cid, slug };
}

/** `seal` for a body built here and used nowhere else: it becomes the entry (no copy). */
function sealed(body: EntryBody, effects?: TurnEffects): Entry {
  if (effects) addEffects(body, effects);
  const { cid, slug } = contentId(body);
  const entry = body as Entry;
  entry.cid = cid;
  entry.slug = slug;
  return entry;
}

export const receiptOf = (entry: Entry): Receipt => placed(entry.receipt, entry.height, entry.cid, entry.slug);

/** The receipt with where it stands (built as `{...r, height, cid, slug}` would be, without its cost). */
function placed(r: ReceiptBody, height: number, cid: string, slug: string): Receipt {
  const out: Receipt = copied(r);
  out.height = height;
  out.cid = cid;
  out.slug = slug;
  return out;
}

function journal(entries: Entry[]): Outcome {
  return { kind: 'journal', entries, receipt: receiptOf(entries[0]!) };
}

const zero = (): Usage => ({ ticks: 0, heap: 0, bytes: 0 });

/**
 * Holds the receipt's place among an entry body's keys (key order is the JSON the store keeps)
 * until the turn is decided; every path puts the real receipt there before sealing.
 */
const undecided: ReceiptBody = Object.freeze({ status: 'done', line: '', revealed: [], offers: [], usage: zero() }) as ReceiptBody;

export function refusedBody(r: Refusal, usage: Usage, object: string, method: string): ReceiptBody {
  const body: ReceiptBody = {
    status: 'refused',
    class: r.class,
    hintKind: hintKind(r.class),
    line: refusalLine(r),
    revealed: [],
    offers: [],
    usage: { ...usage },
    object: r.object ?? object,
    method,
  };
  for (const k of ['clause', 'reason', 'reading', 'hint', 'expected', 'original', 'root'] as const) {
    const v = r[k];
    if (v !== undefined) body[k] = v;
  }
  if (r.next !== undefined) body.next = r.next;
  return body;
}

function doneBody(turn: Turn, object: string, method: string): ReceiptBody {
  const line = turn.lines[0] ?? `${nameOf(turn.scope.principal)} cast ${method} on ${object}`;
  const revealed = turn.revealed.slice();
  const offers = turn.offers.map((o) => o.text);
  const u = turn.usage;
  const usage = { ticks: u.ticks, heap: u.heap, bytes: u.bytes };
  const result = turn.result;
  // two literals rather than a key added later: receipts are kept for good, best with every field in the object itself
  return result !== undefined
    ? { status: 'done', line, revealed, offers, usage, object, method, result }
    : { status: 'done', line, revealed, offers, usage, object, method };
}

/** Adds the entry's effect fields, leaving out the empty ones (they do not change the content id). */
function addEffects(out: Partial<EntryBody>, e: TurnEffects): void {
  if (e.packages.length) out.packages = e.packages;
  if (e.made.length) out.made = e.made;
  if (e.writes.length) out.writes = e.writes;
  if (e.offers.length) out.offers = e.offers;
  if (e.sends.length) out.sends = e.sends;
  if (e.quiet) out.quiet = e.quiet;
}

function tryReport(turn: Turn, body: ReceiptBody, effects: TurnEffects | undefined): TryReport {
  const report = copied(body) as TryReport;
  report.writes = (effects?.writes ?? []).map((w) => ({ object: w.id, version: w.version, state: w.state ?? turn.card(w.id)!.state }));
  report.made = (effects?.made ?? []).map((c) => ({ object: c.id, kind: c.kind, state: c.state }));
  report.fires = (effects?.sends ?? []).map((s) => ({ to: s.to, method: s.method, argument: s.argument }));
  report.opens = effects ? turn.opens() : [];
  report.roots = [...turn.roots].map(([object, version]) => ({ object, version })).sort((a, b) => (a.object < b.object ? -1 : 1));
  return report;
}

/** The intent step: a repeat, a `duplicateIdentity`, or undefined for an unused intent. */
function intentStep(world: World, principal: string, intent: string, fp: string, object: string, method: string): Outcome | undefined {
  const rec = world.intents.get(intentKey(principal, intent));
  if (!rec) return undefined;
  const first = world.receipts.get(rec.cid);
  if (rec.fingerprint === fp && first) return { kind: 'repeat', first: { cid: first.cid, slug: first.slug, height: first.height } };
  const where = first ? `entry ${first.height} (${first.method} on ${first.object}, receipt ${first.slug})` : `entry ${rec.cid}`;
  return {
    kind: 'refused',
    receipt: refusedBody(
      {
        class: 'duplicateIdentity',
        original: rec.cid,
        reason: `intent ${JSON.stringify(intent.slice(0, 64))} was already used for another request: ${where}; resend under a fresh intent`,
      },
      zero(),
      object,
      method,
    ),
  };
}

/** The opener's quiet and the open town's hourly quota: refusals that journal nothing. */
function gateStep(world: World, principal: string, clock: number, options: KernelOptions, object: string, method: string): Outcome | undefined {
  const q = world.quiet.get(principal);
  if (q && q.until > clock) {
    return {
      kind: 'refused',
      receipt: refusedBody({ class: 'quiet', clause: new Date(q.until).toISOString(), reason: q.reading, next: q.until }, zero(), object, method),
    };
  }
  if (options.turnQuota !== undefined && turnsThisHour(world, principal, clock) >= options.turnQuota) {
    const next = (hourOf(clock) + 1) * hourMs;
    return {
      kind: 'refused',
      receipt: refusedBody({ class: 'quota', reason: `${options.turnQuota} turns an hour; this hour's are spent`, next }, zero(), object, method),
    };
  }
  return undefined;
}

function inputOf(cmd: { fields?: unknown; spell?: string; argument?: unknown }): TurnInput | Refusal {
  const given = [cmd.fields !== undefined, cmd.spell !== undefined, cmd.argument !== undefined].filter(Boolean).length;
  if (given > 1) return { class: 'typeMismatch', reason: 'give one of spell, fields, argument', expected: 'one of {spell}, {fields}, {argument}' };
  if (cmd.spell !== undefined) {
    if (typeof cmd.spell !== 'string') return { class: 'typeMismatch', reason: 'spell is text', expected: 'spell: <text>' };
    return { via: 'spell', spell: cmd.spell };
  }
  if (cmd.fields !== undefined) return { via: 'fields', fields: cmd.fields };
  if (cmd.argument !== undefined) {
    if (!TypedDataC.is(cmd.argument))
      return { class: 'typeMismatch', reason: 'argument is not typed data (spec 2.6)', expected: '{tag: record, fields: [{name, value}]}' };
    return { via: 'argument', argument: cmd.argument };
  }
  return { via: 'none' };
}

/** The request as the entry keeps it; `fieldsText` is the stable JSON of `cmd.fields`. */
function storedRequest(cmd: TurnCommand, fieldsText: string | undefined): Request {
  const r: Request = { object: cmd.object, method: cmd.method };
  if (fieldsText !== undefined) r.fields = fieldsText;
  if (typeof cmd.spell === 'string') r.spell = cmd.spell;
  if (cmd.argument !== undefined && TypedDataC.is(cmd.argument)) r.argument = cmd.argument;
  if (cmd.if) r.if = cmd.if.map((x) => ({ object: x.object, version: x.version }));
  return r;
}

/** The fingerprint of `{object, method, fields, spell, argument, if}` (stable JSON, absent keys left out). */
export function requestFingerprint(cmd: Pick<TurnCommand, 'object' | 'method' | 'fields' | 'spell' | 'argument' | 'if'>): string {
  return fingerprintWith(cmd, cmd.fields === undefined ? undefined : stableJson(cmd.fields));
}

/**
 * `requestFingerprint` with the fields' stable JSON already written (the stored request keeps
 * the same text), the request's stable JSON put together here, keys in sorted order.
 */
function fingerprintWith(cmd: Pick<TurnCommand, 'object' | 'method' | 'spell' | 'argument' | 'if'>, fieldsText: string | undefined): string {
  const parts: string[] = [];
  if (cmd.argument !== undefined) parts.push(`"argument":${stableJson(cmd.argument)}`);
  if (fieldsText !== undefined) parts.push(`"fields":${fieldsText}`);
  if (cmd.if !== undefined) parts.push(`"if":${stableJson(cmd.if)}`);
  if (cmd.method !== undefined) parts.push(`"method":${stableJson(cmd.method)}`);
  if (cmd.object !== undefined) parts.push(`"object":${stableJson(cmd.object)}`);
  if (cmd.spell !== undefined) parts.push(`"spell":${stableJson(cmd.spell)}`);
  return fingerprintOfText(`{${parts.join(',')}}`);
}

function decideTurn(world: World, cmd: TurnCommand, clock: number, programs: Programs, options: KernelOptions): Outcome {
  const { principal, object, method } = cmd;
  const fieldsText = cmd.fields === undefined ? undefined : stableJson(cmd.fields);
  const fp = fingerprintWith(cmd, fieldsText);
  if (!cmd.try) {
    const repeat = intentStep(world, principal, cmd.intent, fp, object, method);
    if (repeat) return repeat;
  }
  const gate = gateStep(world, principal, clock, options, object, method);
  if (gate) return gate;

  const base: EntryBody = {
    height: world.height,
    clock,
    kind: 'turn',
    principal,
    intent: { intent: cmd.intent, fingerprint: fp },
    request: storedRequest(cmd, fieldsText),
    receipt: undecided,
  };
  const turn = new Turn({ world, programs, options, clock, height: world.height, principal, caller: principal, depth: 0, run: world.height });
  const refused = (r: Refusal): Outcome => {
    const body = refusedBody(r, turn.usage, object, method);
    if (cmd.try) return { kind: 'try', report: tryReport(turn, body, undefined) };
    base.receipt = body;
    return journal([sealed(base)]);
  };

  if (!visibleCard(world, object, principal))
    return refused({ class: 'unknownObject', reason: `no card ${JSON.stringify(object.slice(0, 128))} that you may see`, object });
  for (const root of cmd.if ?? []) {
    const now = visibleCard(world, root.object, principal);
    if (!now || now.version !== root.version) {
      const where = now ? `stands at version ${now.version}` : 'is gone';
      return {
        kind: 'refused',
        receipt: refusedBody(
          { class: 'moved', reason: `${root.object} ${where}, not version ${root.version}; read it again and resend with new roots`, object: root.object },
          zero(),
          object,
          method,
        ),
      };
    }
  }
  const input = inputOf(cmd);
  if ('class' in input) return refused(input);

  let effects: TurnEffects;
  let castMethod = method;
  try {
    castMethod = castRequest(turn, object, method, input).method;
    effects = turn.finish();
  } catch (e) {
    if (e instanceof Refused) return refused(e.refusal);
    throw e;
  }
  const receipt = doneBody(turn, object, castMethod);
  if (cmd.try) return { kind: 'try', report: tryReport(turn, receipt, effects) };
  base.receipt = receipt;
  return journal([sealed(base, effects)]);
}

/**
 * The oldest queued send is the first in the queue: evolve adds sends in journal order (ids
 * ascending) and only ever removes them, so no scan of a long queue is needed.
 */
function oldestSend(world: World): Send | undefined {
  for (const s of world.pending.values()) return s;
  return undefined;
}

function decideDeliver(world: World, max: number, clock: number, programs: Programs, options: KernelOptions): Outcome {
  const w = layered(world);
  const entries: Entry[] = [];
  for (let i = 0; i < max; i++) {
    const send = oldestSend(w);
    if (!send) break;
    const entry = deliverOne(w, send, clock, programs, options);
    evolve(w, entry);
    entries.push(entry);
  }
  return entries.length ? journal(entries) : { kind: 'nothing', reason: 'no sends wait' };
}

/** One queued send run as a turn of the sending card, within its run's allowances. */
export function deliverOne(world: World, send: Send, clock: number, programs: Programs, options: KernelOptions): Entry {
  const allow = options.allowances;
  const run = world.runs.get(send.run) ?? { work: 0, storage: 0, waiting: 0 };
  const base: EntryBody = {
    height: world.height,
    clock,
    kind: 'delivery',
    principal: send.from,
    request: { object: send.to, method: send.method, argument: send.argument },
    consumed: send.id,
    receipt: undecided,
  };
  const spentAfter = (u: Usage) => ({ run: send.run, work: run.work + u.ticks, storage: run.storage + u.bytes });
  const refused = (r: Refusal, u: Usage): Entry => {
    base.spent = spentAfter(u);
    base.receipt = refusedBody(r, u, send.to, send.method);
    return sealed(base);
  };
  const exhausted = (which: 'depth' | 'work' | 'storage', u: Usage): Entry => {
    const spentOf =
      which === 'depth'
        ? `sends chain at most ${allow.depth} deep; this one is ${send.depth}`
        : which === 'work'
          ? `the run has spent its ${allow.work} ticks`
          : `the run has written its ${allow.storage} bytes`;
    return refused({ class: 'budgetExhausted', reason: `${which}: ${spentOf}`, clause: which, object: send.to }, u);
  };
  if (send.depth > allow.depth) return exhausted('depth', zero());
  if (run.work >= allow.work) return exhausted('work', zero());
  if (run.storage >= allow.storage) return exhausted('storage', zero());

  const budget = {
    ticks: Math.min(options.budget.ticks, allow.work - run.work),
    heap: options.budget.heap,
    bytes: Math.min(options.budget.bytes, allow.storage - run.storage),
  };
  const scope: TurnScope = {
    world,
    programs,
    options: { ...options, budget },
    clock,
    height: world.height,
    principal: send.principal,
    caller: send.from,
    depth: send.depth,
    run: send.run,
    delivery: true,
  };
  const turn = new Turn(scope);
  const card = visibleCard(world, send.to, send.principal);
  if (!card) return refused({ class: 'unknownObject', reason: `no card ${send.to} for ${send.from}'s send`, object: send.to }, zero());
  let effects: TurnEffects;
  let castMethod = send.method;
  try {
    castMethod = castRequest(turn, send.to, send.method, { via: 'argument', argument: send.argument }).method;
    effects = turn.finish();
  } catch (e) {
    if (!(e instanceof Refused)) throw e;
    const r = e.refusal;
    if (r.class === 'budget' && r.reason === 'ticks' && budget.ticks < options.budget.ticks) return exhausted('work', turn.usage);
    if (r.class === 'budget' && r.reason === 'bytes' && budget.bytes < options.budget.bytes) return exhausted('storage', turn.usage);
    return refused(r, turn.usage);
  }
  const receipt = doneBody(turn, send.to, castMethod);
  receipt.line = turn.lines[0] ?? `${send.from} sent ${castMethod} to ${send.to}`;
  base.spent = spentAfter(turn.usage);
  base.receipt = receipt;
  return sealed(base, effects);
}

function decideArrive(world: World, cmd: ArriveCommand, clock: number, programs: Programs, options: KernelOptions): Outcome {
  if (world.avatars.has(cmd.principal)) return { kind: 'nothing', reason: `${cmd.name} already has an avatar` };
  const src = programs.kind('avatar');
  if (!src) return { kind: 'nothing', reason: 'the library has no avatar kind' };
  const turn = new Turn({ world, programs, options, clock, height: world.height, principal: cmd.principal, caller: 'town', depth: 0, run: world.height });
  let id = `avatar-${cmd.name.replace(/[^A-Za-z0-9._:/-]/g, '')}`;
  for (let n = 2; world.cards.has(id); n++) id = `avatar-${cmd.name}-${n}`;
  const base: EntryBody = {
    height: world.height,
    clock,
    kind: 'arrival',
    principal: cmd.principal,
    avatars: [{ principal: cmd.principal, object: id }],
    receipt: undecided,
  };
  try {
    turn.make(src, {
      id,
      maker: 'town',
      owner: cmd.principal,
      place: world.entrance,
      seed: fitSeed(programs, src, { name: cmd.name, room: world.entrance }, options, clock),
      offer: false,
    });
    turn.say(id, `${nameOf(cmd.principal)} arrived${world.entrance ? ` in ${world.entrance}` : ''}`);
    enterRoom(turn, world.entrance, id);
    const effects = turn.finish();
    base.receipt = doneBody(turn, id, 'arrive');
    return journal([sealed(base, effects)]);
  } catch (e) {
    if (!(e instanceof Refused)) throw e;
    base.avatars = [];
    base.receipt = refusedBody(e.refusal, turn.usage, id, 'arrive');
    return journal([sealed(base)]);
  }
}

/** The room hears that the avatar came in, from the avatar itself, when it keeps such a list. */
function enterRoom(turn: Turn, roomId: string, avatar: string): void {
  const room = roomId ? turn.card(roomId) : undefined;
  if (!room) return;
  const enter = turn.programOf(room).methods.find((m) => m.name === 'enter' && m.kind === 'spell');
  const form = enter?.form;
  if (form?.length !== 1 || form[0]!.form.kind !== 'object') return;
  turn.call(roomId, 'enter', { tag: 'record', fields: [{ name: form[0]!.name, value: { tag: 'label', value: avatar } }] }, avatar);
}

function modulesOf(cmd: { source?: string; modules?: Module[] }): Module[] | HostRequest {
  if (cmd.source !== undefined && cmd.modules !== undefined) return { class: 'hostRequest', message: 'give source or modules, not both' };
  const modules = cmd.source !== undefined ? [{ name: 'main', source: cmd.source }] : cmd.modules;
  if (!modules || modules.length === 0) return { class: 'hostRequest', message: 'give source (one module) or modules' };
  if (modules.length > limits.modules) return { class: 'hostRequest', message: `at most ${limits.modules} modules` };
  const big = modules.find((m) => Buffer.byteLength(m.source) > limits.moduleBytes);
  if (big) return { class: 'hostRequest', message: `module ${big.name} is over ${limits.moduleBytes} bytes` };
  return modules;
}

function compileFailure(diagnostics: Diagnostic[]): HostRequest {
  const d = diagnostics[0];
  if (!d) return { class: 'hostRequest', message: 'the modules do not compile', diagnostics };
  return {
    class: 'hostRequest',
    message: `${d.stage} error in ${d.module} at ${d.line}:${d.column}: ${d.message}`,
    diagnostics,
    stage: d.stage,
    module: d.module,
    span: { line: d.line, column: d.column, endLine: d.endLine, endColumn: d.endColumn },
    ...(d.hint ? { hint: d.hint } : {}),
  };
}

function decideCreate(world: World, cmd: CreateCommand, clock: number, programs: Programs, options: KernelOptions): Outcome {
  const { principal, object } = cmd;
  if (!OBJECT_ID.test(object) || object.length < 1 || object.length > 128)
    return { kind: 'rejected', error: { class: 'hostRequest', message: 'object: a card id is 1 to 128 of letters, digits and . _ : / -' } };
  if (cmd.entry !== 'initial') return { kind: 'rejected', error: { class: 'hostRequest', message: 'entry: a card is created from `initial`' } };
  const modules = modulesOf(cmd);
  if (!Array.isArray(modules)) return { kind: 'rejected', error: modules };
  const fp = fingerprint({ create: { object, source: cmd.source, modules: cmd.modules, entry: cmd.entry, law: cmd.law, seed: cmd.seed } });
  const repeat = intentStep(world, principal, cmd.intent, fp, object, 'create');
  if (repeat) return repeat;
  const src: PackageSource = { kind: modules[0]!.name, modules, ...(cmd.law !== undefined ? { law: cmd.law } : {}) };
  const compiled = programs.load(src);
  if (!compiled.ok) return { kind: 'rejected', error: compileFailure(compiled.diagnostics) };

  const base: EntryBody = {
    height: world.height,
    clock,
    kind: 'create',
    principal,
    intent: { intent: cmd.intent, fingerprint: fp },
    request: { object, method: 'create' },
    receipt: undecided,
  };
  const turn = new Turn({ world, programs, options, clock, height: world.height, principal, caller: principal, depth: 0, run: world.height });
  if (world.cards.has(object)) {
    base.receipt = refusedBody(
      { class: 'requiredAbsence', root: object, reason: `${object} is already present in this world`, object },
      zero(),
      object,
      'create',
    );
    return journal([sealed(base)]);
  }
  try {
    turn.make(src, { id: object, maker: principal, visibility: 'owner', place: '', seed: cmd.seed, offer: false, compiled: turn.pin(src) });
    turn.say(object, `${nameOf(principal)} created ${object}`);
    const effects = turn.finish();
    base.receipt = doneBody(turn, object, 'create');
    return journal([sealed(base, effects)]);
  } catch (e) {
    if (!(e instanceof Refused)) throw e;
    base.receipt = refusedBody(e.refusal, turn.usage, object, 'create');
    return journal([sealed(base)]);
  }
}

function decideRepl(world: World, cmd: ReplCommand, clock: number, programs: Programs, options: KernelOptions): Outcome {
  const { principal } = cmd;
  const object = cmd.object ?? 'repl';
  if (cmd.source === undefined && cmd.modules === undefined) {
    return decideTurn(
      world,
      { kind: 'turn', principal, intent: cmd.intent, object, method: cmd.entry, fields: cmd.fields, argument: cmd.argument },
      clock,
      programs,
      options,
    );
  }
  const modules = modulesOf(cmd);
  if (!Array.isArray(modules)) return { kind: 'rejected', error: modules };
  const src: PackageSource = { kind: modules[0]!.name, modules };
  const compiled = programs.load(src);
  if (!compiled.ok) return { kind: 'rejected', error: compileFailure(compiled.diagnostics) };
  const program = compiled.program;
  const activity = program.methods.find((m) => m.name === cmd.entry && m.kind === 'spell');

  if (!activity) {
    const args: TypedData[] = [];
    for (const a of cmd.arguments ?? []) {
      if (!TypedDataC.is(a)) return { kind: 'rejected', error: { class: 'hostRequest', message: 'arguments: each is typed data (spec 2.6)' } };
      args.push(a);
    }
    let r: ReturnType<typeof program.runEntry>;
    try {
      r = program.runEntry(cmd.entry, args, options.budget);
    } catch (e) {
      r = { ok: false as const, refusal: { class: 'evaluation' as const, reason: e instanceof Error ? e.message : String(e) }, usage: zero() };
    }
    if (r.ok) return { kind: 'value', value: r.result, usage: r.usage };
    const refusal: Refusal =
      r.refusal.class === 'cardRefused'
        ? { class: 'cardRefused', clause: r.refusal.clause, reading: r.refusal.reading, reason: `refused ${r.refusal.clause}: ${r.refusal.reading}` }
        : { class: r.refusal.class, reason: r.refusal.reason };
    return { kind: 'refused', receipt: refusedBody(refusal, r.usage, object, cmd.entry) };
  }

  const input = inputOf({ fields: cmd.fields, argument: cmd.argument });
  const request: Request = { object, method: cmd.entry };
  if (cmd.fields !== undefined) request.fields = stableJson(cmd.fields);
  if (cmd.argument !== undefined && TypedDataC.is(cmd.argument)) request.argument = cmd.argument;
  const fp = fingerprint({ repl: { object, entry: cmd.entry, source: cmd.source, modules: cmd.modules, fields: cmd.fields, argument: cmd.argument } });
  const repeat = intentStep(world, principal, cmd.intent, fp, object, cmd.entry);
  if (repeat) return repeat;
  const gate = gateStep(world, principal, clock, options, object, cmd.entry);
  if (gate) return gate;
  const base: EntryBody = {
    height: world.height,
    clock,
    kind: 'turn',
    principal,
    intent: { intent: cmd.intent, fingerprint: fp },
    request,
    receipt: undecided,
  };
  const turn = new Turn({ world, programs, options, clock, height: world.height, principal, caller: principal, depth: 0, run: world.height });
  const refused = (r: Refusal) => {
    base.receipt = refusedBody(r, turn.usage, object, cmd.entry);
    return journal([sealed(base)]);
  };
  if ('class' in input) return refused(input);
  try {
    const existing = world.cards.get(object);
    if (!existing) {
      turn.make(src, { id: object, maker: principal, visibility: 'owner', place: '', offer: false, compiled: turn.pin(src) });
    } else {
      if (!canSee(existing, principal))
        return refused({ class: 'unknownObject', reason: `${object} is taken by a card you may not see; name another object`, object });
      if (existing.owner !== principal)
        return refused({ class: 'badSpell', clause: 'notYours', reason: `${object} belongs to ${nameOf(existing.owner)}; name another object`, object });
      if (existing.pin !== program.cid) turn.reprogram(object, src, `${cmd.entry}`);
    }
    castRequest(turn, object, cmd.entry, input);
    const effects = turn.finish();
    base.receipt = doneBody(turn, object, cmd.entry);
    return journal([sealed(base, effects)]);
  } catch (e) {
    if (!(e instanceof Refused)) throw e;
    return refused(e.refusal);
  }
}

function decideCheck(cmd: CheckCommand, programs: Programs): Outcome {
  const modules = modulesOf(cmd);
  if (!Array.isArray(modules)) return { kind: 'rejected', error: modules };
  return { kind: 'checked', diagnostics: programs.check(modules, cmd.entry) };
}
