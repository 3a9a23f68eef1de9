/**
 * `npm run town -- card <check|forms|run|view|repl> …`: cards as files, without a server, the way
 * `tsc --noEmit` works for TypeScript. Every answer is the kernel's (`decide` on an in-memory
 * scratch world, the sealed library's programs) rendered by the same reply modules the HTTP
 * routes use, so what the command line says is what the host would say.
 *
 * Exit codes: 0 all well; 1 the host said no (diagnostics, a refused turn, a rejected request);
 * 2 the command line is wrong or a file cannot be read (the host was never asked).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { actionsOf, formsOf } from '../cards/kernel/reading.js';
import type { HostRequest, Outcome } from '../cards/kernel/outcome.js';
import { decide } from '../cards/kernel/decide.js';
import { blankWorld } from '../cards/kernel/world.js';
import { defaultOptions } from '../cards/kernel/options.js';
import { envelope } from '../contract/envelope.js';
import type { Clock } from '../contract/clock.js';
import { TownError } from '../contract/town-error.js';
import { isGuestName } from '../contract/names.js';
import { checkOutcomeReply, type CheckReply } from '../queries/check-reply.js';
import { hostRequestError, outcomeReply, turnReply, type TryReply, type TurnReply, type ValueReply } from '../queries/turn-reply.js';
import { FileError, InputError, readModules, readText, ValueError, type InputIo, type Modules } from './card-input.js';
import { guestPrincipal, scratchHost, scratchPrograms, ScratchWorld } from './card-scratch.js';
import { showData } from '../cards/typed-text.js';
import { diagnosticLines, formsLines, hostRequestLines, type SaidLine, saidLines, sayLines, tryLines, turnLines, valueLines } from './card-show.js';
import { TypedDataC, type TypedData } from '../contract/typed.js';
import { limits } from '../contract/limits.js';

export interface CardIo extends InputIo {
  clock: Clock;
  out(line: string): void;
  err(line: string): void;
}

export const cardCommands = new Set(['card']);

/** Each subcommand's usage, as `npm run town` lists it. */
const usageOf: Record<string, string[]> = {
  check: ['card check <file.card|dir|-> [more modules…] [--entry <def>] [--json]   check modules against the sealed library'],
  forms: ['card forms <file.card|dir|-> [more modules…] [--json]                   the _actions templates and forms'],
  run: [
    'card run <file.card|dir|-> [more…] [--law <file>] [--seed <json>] [--object <id>] [--owner <guest>]',
    '         [--as <guest>] (--spell <spell> [--argument <json>] | --try <spell> [--argument <json>])… [--clock <ms|ISO>] [--json]',
    '                                                                         make the card in a throwaway world and cast',
  ],
  view: [
    'card view <file.card|dir|-> [more…] <view> [the options of run…] [--viewer <guest>] [--json]',
    '                                                                         draw a view (paint, page, …) of the card',
  ],
  repl: [
    'card repl <file.card|dir|-> <entry> [typed argument as JSON]… [--fields <json>] [--object <id>] [--as <guest>] [--json]',
    '                                                                         run an entry of the module',
  ],
};

export const cardUsage = Object.values(usageOf).flat();

const exit = { ok: 0, refused: 1, usage: 2 } as const;

/** Runs `card <sub> …`; answers the exit code. */
export async function runCard(command: string, args: string[], io: CardIo): Promise<number> {
  const [sub, ...rest] = args;
  try {
    if (command !== 'card') throw new InputError(`unknown command ${command}`);
    switch (sub) {
      case 'check':
        return await check(rest, io);
      case 'forms':
        return await forms(rest, io);
      case 'run':
        return await run(rest, io);
      case 'repl':
        return await repl(rest, io);
      case 'view':
        return await view(rest, io);
      default:
        throw new InputError(sub === undefined ? 'card needs a subcommand' : `unknown card subcommand ${sub}`);
    }
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    io.err(`card: ${error.message}`);
    if (!(error instanceof FileError) && !(error instanceof ValueError)) {
      io.err('usage: npm run town -- <command>');
      for (const line of sub !== undefined && Object.hasOwn(usageOf, sub) ? usageOf[sub]! : cardUsage) io.err(`  ${line}`);
    }
    return exit.usage;
  }
}

type Options = ParseArgsConfig['options'];

/** node:util's parser, keeping the order of options (`--as` applies to the spells after it). */
function parse(args: string[], options: NonNullable<Options>) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true, tokens: true });
  } catch (e) {
    throw new InputError(e instanceof Error ? e.message : String(e));
  }
}

const json = (io: CardIo, value: unknown) => io.out(JSON.stringify(value, null, 2));

/** The `hostRequest` envelope (spec 2.10) as the front answers it, less the links of a URL there is none of. */
function rejectedBody(e: HostRequest | TownError): Record<string, unknown> {
  const { _links: _l, ...body } = envelope(e instanceof TownError ? e : hostRequestError(e), '').body;
  return body;
}

/**
 * A guest as the flags take it: a short name (`ann`), or the principal state compares against
 * (`guest:<host>:ann`, with the scratch world's host), the same two forms a spell's Principal
 * field takes. Answers the short name.
 */
function guest(name: string, flag: string): string {
  const prefix = `guest:${scratchHost}:`;
  const short = name.startsWith(prefix) ? name.slice(prefix.length) : name;
  if (!isGuestName(short)) throw new InputError(`${flag} ${JSON.stringify(name)} is not a guest: a name ([a-z][a-z0-9-]{0,31}) or ${prefix}<name>`);
  return short;
}

/**
 * A JSON value given on the command line. It may nest as deep as a request body may over HTTP
 * (limits.bodyDepth, 256 objects and lists), no deeper: the typed data read from it is walked
 * by recursion, which a value nested thousands deep would take past the stack.
 */
function jsonValue(text: string, flag: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (e) {
    throw new InputError(`${flag} is not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (nestsDeeper(value, limits.bodyDepth))
    throw new ValueError(`${flag} nests deeper than ${limits.bodyDepth} objects and lists, the most a request body may`);
  return value;
}

/** Whether `value` has objects or lists more than `max` deep (walked without recursion). */
function nestsDeeper(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth + 1 > max) return true;
    for (const v of Object.values(node)) stack.push([v, depth + 1]);
  }
  return false;
}

function clockOf(text: string | undefined, io: CardIo): Clock {
  if (text === undefined) return io.clock;
  const at = /^\d+$/.test(text) ? Number(text) : /(Z|[+-]\d\d:?\d\d)$/.test(text) ? Date.parse(text) : NaN;
  if (!Number.isSafeInteger(at)) throw new InputError(`--clock takes milliseconds since the epoch or an ISO time with its zone, not ${JSON.stringify(text)}`);
  return () => at;
}

/** The kernel's check of a package, as the scratch `check` route decides it. */
function decideCheck(mods: Modules, entry?: string): Outcome {
  return decide(blankWorld(), { kind: 'check', modules: mods.modules, ...(entry !== undefined ? { entry } : {}) }, 0, scratchPrograms(), defaultOptions);
}

/** Prints a check that did not pass (text or JSON); undefined when it passed. */
function failedCheck(outcome: Outcome, mods: Modules, io: CardIo, asJson: boolean): number | undefined {
  let reply: CheckReply;
  try {
    reply = checkOutcomeReply(outcome);
  } catch (e) {
    if (!(e instanceof TownError)) throw e;
    if (asJson) json(io, rejectedBody(e));
    else for (const line of hostRequestLines(rejectedBody(e), mods.files)) io.out(line);
    return exit.refused;
  }
  if (reply.ok) return undefined;
  if (asJson) json(io, reply);
  else for (const line of diagnosticLines(reply.diagnostics, mods.files)) io.out(line);
  return exit.refused;
}

async function check(args: string[], io: CardIo): Promise<number> {
  const { values, positionals } = parse(args, { entry: { type: 'string' }, json: { type: 'boolean' } });
  const mods = await readModules(positionals, io);
  const outcome = decideCheck(mods, values.entry as string | undefined);
  const failed = failedCheck(outcome, mods, io, values.json === true);
  if (failed !== undefined) return failed;
  if (values.json) json(io, checkOutcomeReply(outcome));
  else for (const m of mods.modules) io.out(`${mods.files.get(m.name) ?? m.name}: ok`);
  return exit.ok;
}

async function forms(args: string[], io: CardIo): Promise<number> {
  const { values, positionals } = parse(args, { json: { type: 'boolean' } });
  const mods = await readModules(positionals, io);
  const failed = failedCheck(decideCheck(mods), mods, io, values.json === true);
  if (failed !== undefined) return failed;
  // The program a card of this package runs, compiled as the kernel compiles it (by package).
  const loaded = scratchPrograms().load({ kind: mods.modules[0]!.name, modules: mods.modules });
  if (!loaded.ok) {
    // The package checks but does not compile as a card's package: said the same way.
    if (values.json) json(io, checkOutcomeReply({ kind: 'checked', diagnostics: loaded.diagnostics }));
    else for (const line of diagnosticLines(loaded.diagnostics, mods.files)) io.out(line);
    return exit.refused;
  }
  const actions = actionsOf(loaded.program);
  const shown = formsOf(loaded.program);
  if (values.json) json(io, { _actions: actions, forms: shown });
  else for (const line of formsLines(actions, shown)) io.out(line);
  return exit.ok;
}

interface CastRecord {
  as: string;
  spell: string;
  try: boolean;
  /** `--argument`: the typed record the spell was cast with (plain JSON read against its parameters). */
  argument?: TypedData;
  reply: TurnReply | TryReply | Record<string, unknown>;
  /** Every line said by the turn and the deliveries after it (the reply's `line` is the first). */
  says: SaidLine[];
}

interface Cast {
  as: string;
  spell: string;
  try: boolean;
  /** The plain JSON of a following `--argument`. */
  plain?: string;
  argument?: TypedData;
}

const objectOf = (name: string) => name.replace(/[^A-Za-z0-9._:/-]/g, '').slice(0, 128) || 'card';

/** The options `run` and `view` share: the card made, then the spells cast at it in order. */
const castOptions = {
  law: { type: 'string' },
  seed: { type: 'string' },
  object: { type: 'string' },
  owner: { type: 'string' },
  as: { type: 'string', multiple: true },
  spell: { type: 'string', multiple: true },
  try: { type: 'string', multiple: true },
  argument: { type: 'string', multiple: true },
  clock: { type: 'string' },
  json: { type: 'boolean' },
} as const;

type Parsed = ReturnType<typeof parse>;

/** `--spell`/`--try`, each cast by the last `--as` before it; an `--argument` belongs to the spell before it. */
function castsOf(tokens: Parsed['tokens'], owner: string): Cast[] {
  const casts: Cast[] = [];
  let caster = owner;
  for (const tok of tokens ?? []) {
    if (tok.kind !== 'option') continue;
    if (tok.name === 'as') caster = guest(tok.value ?? '', '--as');
    if (tok.name === 'spell' || tok.name === 'try') casts.push({ as: caster, spell: tok.value ?? '', try: tok.name === 'try' });
    if (tok.name === 'argument') {
      const last = casts.at(-1);
      if (!last) throw new InputError('--argument gives the typed argument of the --spell (or --try) before it: --spell <method> --argument <json>');
      if (last.plain !== undefined) throw new InputError(`--spell ${last.spell} has one --argument`);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(last.spell)) {
        throw new InputError(`--argument goes with a spell named alone (--spell <method> --argument <json>), not ${JSON.stringify(last.spell)}`);
      }
      last.plain = tok.value ?? '';
    }
  }
  return casts;
}

/**
 * Each `--argument` read against its spell's parameters, as the card's program declares them:
 * plain JSON (records as objects, lists as arrays, a bare tag as text, a tag with fields as
 * `{"label": …, "payload": {…}}`), or typed data (spec 2.6) as it is. A value that does not fit
 * is the command line's mistake, said with the path and the type wanted (exit 2).
 */
function typeArguments(casts: Cast[], mods: Modules): void {
  if (!casts.some((c) => c.plain !== undefined)) return;
  const loaded = scratchPrograms().load({ kind: mods.modules[0]!.name, modules: mods.modules });
  for (const c of casts) {
    if (c.plain === undefined) continue;
    const plain = jsonValue(c.plain, `--argument of ${c.spell}`);
    if (TypedDataC.is(plain) && plain.tag === 'record') {
      c.argument = plain;
      continue;
    }
    // A module that does not compile is said by the create, as without --argument.
    if (!loaded.ok) return;
    const read = loaded.program.plainArgument(c.spell, plain);
    if (!read.ok) {
      const spell = loaded.program.methods.find((m) => m.name === c.spell && m.kind === 'spell');
      throw new ValueError(`--argument of ${c.spell}: ${read.reason}${spell ? `; ${c.spell} takes ${spell.signature}` : ''}`);
    }
    c.argument = read.argument;
  }
}

interface Made {
  world: ScratchWorld;
  object: string;
  owner: string;
  mods: Modules;
  created?: TurnReply;
  /** The create's refusal as the hostRequest envelope (a module that does not compile). */
  rejected?: Record<string, unknown>;
  casts: CastRecord[];
  refused: boolean;
}

/**
 * Makes the card as the scratch `objects` route would and casts each spell in order (the ones
 * after a refusal are still cast, as an author's script would be); `show` prints each as it goes.
 */
async function makeAndCast(values: Parsed['values'], positionals: string[], tokens: Parsed['tokens'], io: CardIo, show: boolean): Promise<Made> {
  const mods = await readModules(positionals, io);
  const owner = guest((values.owner as string | undefined) ?? 'ann', '--owner');
  const casts = castsOf(tokens, owner);
  const lawFile = values.law as string | undefined;
  const law = lawFile !== undefined ? readText(lawFile, io, 'law file') : undefined;
  if (lawFile !== undefined) mods.files.set('law', lawFile);
  const seed = values.seed !== undefined ? jsonValue(values.seed as string, '--seed') : undefined;
  typeArguments(casts, mods);
  const object = (values.object as string | undefined) ?? objectOf(mods.modules[0]!.name);
  const world = new ScratchWorld(guestPrincipal(owner), clockOf(values.clock as string | undefined, io));
  const made: Made = { world, object, owner, mods, casts: [], refused: false };

  const create = world.create({
    principal: guestPrincipal(owner),
    object,
    modules: mods.modules,
    ...(law !== undefined ? { law } : {}),
    ...(seed !== undefined ? { seed } : {}),
  });
  if (create.outcome.kind === 'rejected') {
    made.rejected = rejectedBody(create.outcome.error);
    made.refused = true;
    return made;
  }
  if (create.outcome.kind !== 'journal' && create.outcome.kind !== 'refused') throw new Error(`a create decided ${create.outcome.kind}`);
  made.created = turnReply(create.outcome.receipt, { height: create.height, full: true });
  if (show) {
    io.out(`> create ${object} as ${owner}`);
    for (const line of turnLines(made.created)) io.out(line);
    if (create.outcome.kind === 'journal') for (const line of sayLines(saidLines(create.outcome.entries))) io.out(line);
  }
  made.refused = made.created.status === 'refused';
  if (made.refused) return made;
  for (const c of casts) {
    const d = c.argument ? world.call(guestPrincipal(c.as), object, c.spell, c.argument, c.try) : world.cast(guestPrincipal(c.as), object, c.spell, c.try);
    let reply: TurnReply | TryReply | Record<string, unknown>;
    try {
      reply = outcomeReply(d.outcome, { height: d.height, full: true, ...(d.deliveries ? { deliveries: d.deliveries } : {}) }) as TurnReply | TryReply;
    } catch (e) {
      if (!(e instanceof TownError)) throw e;
      reply = rejectedBody(e);
    }
    if (reply.status !== 'done') made.refused = true;
    const says = saidLines([...(d.outcome.kind === 'journal' ? d.outcome.entries : []), ...(d.deliveries ?? [])]);
    made.casts.push({ as: c.as, spell: c.spell, try: c.try, ...(c.argument ? { argument: c.argument } : {}), reply, says });
    if (!show) continue;
    io.out(`> ${c.as !== owner ? `as ${c.as}: ` : ''}${c.try ? 'try ' : ''}${c.spell}${c.plain !== undefined ? ` ${c.plain}` : ''}`);
    const lines = 'try' in reply ? tryLines(reply as TryReply) : 'line' in reply ? turnLines(reply as TurnReply) : hostRequestLines(reply, made.mods.files);
    for (const line of lines) io.out(line);
    for (const line of sayLines(says)) io.out(line);
  }
  return made;
}

async function run(args: string[], io: CardIo): Promise<number> {
  const { values, positionals, tokens } = parse(args, castOptions);
  const asJson = values.json === true;
  const made = await makeAndCast(values, positionals, tokens, io, !asJson);
  if (made.rejected) {
    if (asJson) json(io, { create: made.rejected });
    else for (const line of hostRequestLines(made.rejected, made.mods.files)) io.out(line);
    return exit.refused;
  }
  const card = made.world.card(made.object, guestPrincipal(made.owner));
  const shown = card ? { object: card.id, kind: card.kind, version: card.version, owner: card.owner, state: card.state } : undefined;
  if (asJson) json(io, { create: made.created, casts: made.casts, ...(shown ? { card: shown } : {}) });
  else if (shown) {
    io.out(`card ${shown.object}, version ${shown.version}:`);
    io.out(`  state: ${showData(shown.state)}`);
  }
  return made.refused ? exit.refused : exit.ok;
}

/**
 * `card view <module…> <view>`: the card made (and the spells cast) as `run` makes it, then the
 * view drawn for the viewer (`--viewer`, default the owner) as a page draws it. The text is
 * printed as it is, line breaks and all; `--json` gives `{object, view, viewer, result, usage}`.
 * A cast that is refused is printed as `run` prints it, and no view is drawn.
 */
async function view(args: string[], io: CardIo): Promise<number> {
  const { values, positionals, tokens } = parse(args, { ...castOptions, viewer: { type: 'string' } });
  const name = positionals.at(-1);
  if (positionals.length < 2 || name === undefined) throw new InputError('view takes a module (file, directory or -) and the name of a view (paint, page, …)');
  const asJson = values.json === true;
  const made = await makeAndCast(values, positionals.slice(0, -1), tokens, io, false);
  if (made.rejected) {
    if (asJson) json(io, { create: made.rejected });
    else for (const line of hostRequestLines(made.rejected, made.mods.files)) io.out(line);
    return exit.refused;
  }
  const failed = made.created?.status === 'refused' ? undefined : made.casts.find((c) => c.reply.status !== 'done');
  if (made.refused) {
    if (asJson) json(io, { create: made.created, casts: made.casts });
    else {
      if (!failed) for (const line of turnLines(made.created!)) io.out(line);
      else {
        io.out(`> ${failed.as !== made.owner ? `as ${failed.as}: ` : ''}${failed.try ? 'try ' : ''}${failed.spell}`);
        const r = failed.reply;
        for (const line of 'try' in r ? tryLines(r as TryReply) : 'line' in r ? turnLines(r as TurnReply) : hostRequestLines(r, made.mods.files)) io.out(line);
      }
    }
    return exit.refused;
  }
  const viewer = guest((values.viewer as string | undefined) ?? made.owner, '--viewer');
  const drawn = made.world.view(made.object, name, guestPrincipal(viewer));
  if (!drawn) {
    const body = { status: 'refused', class: 'unknown', message: `no card ${made.object} that ${viewer} may see` };
    if (asJson) json(io, body);
    else io.out(`unknown: ${body.message}`);
    return exit.refused;
  }
  const views = drawn.methods.filter((m) => m.kind === 'view').map((m) => m.name);
  if (!views.includes(name)) {
    const message = `${made.object} has no view ${name}; its views: ${views.join(', ') || 'none'}`;
    if (asJson) json(io, { status: 'refused', class: 'noMethod', message });
    else io.out(`noMethod: ${message}`);
    return exit.refused;
  }
  const r = drawn.drawn;
  if (!r.ok) {
    const f = r.refusal;
    const reason = f.class === 'cardRefused' ? `refused ${f.clause}: ${f.reading}` : f.reason;
    if (asJson) json(io, { status: 'refused', class: f.class, reason, usage: r.usage });
    else io.out(`${f.class}: ${reason}`);
    return exit.refused;
  }
  if (asJson) json(io, { object: made.object, view: name, viewer: guestPrincipal(viewer), result: r.result, usage: r.usage });
  else if (r.result.tag === 'label') for (const line of r.result.value.split('\n')) io.out(line);
  else io.out(showData(r.result));
  return exit.ok;
}

async function repl(args: string[], io: CardIo): Promise<number> {
  const { values, positionals } = parse(args, {
    as: { type: 'string' },
    fields: { type: 'string' },
    object: { type: 'string' },
    clock: { type: 'string' },
    json: { type: 'boolean' },
  });
  const [input, entry, ...given] = positionals;
  if (input === undefined || entry === undefined) throw new InputError('repl takes a module (file, directory or -) and an entry');
  const asJson = values.json === true;
  const mods = await readModules([input], io);
  const principal = guestPrincipal(guest((values.as as string | undefined) ?? 'ann', '--as'));
  const argumentsGiven = given.map((a, i) => jsonValue(a, `argument ${i + 1}`));
  const fields = values.fields !== undefined ? jsonValue(values.fields as string, '--fields') : undefined;
  const world = new ScratchWorld(principal, clockOf(values.clock as string | undefined, io));
  const d = world.repl({
    principal,
    modules: mods.modules,
    entry,
    ...(argumentsGiven.length ? { arguments: argumentsGiven } : {}),
    ...(fields !== undefined ? { fields } : {}),
    ...(values.object !== undefined ? { object: values.object as string } : {}),
  });
  let reply: TurnReply | ValueReply | Record<string, unknown>;
  try {
    reply = outcomeReply(d.outcome, { height: d.height, full: true }) as TurnReply | ValueReply;
  } catch (e) {
    if (!(e instanceof TownError)) throw e;
    const body = rejectedBody(e);
    if (asJson) json(io, body);
    else for (const line of hostRequestLines(body, mods.files)) io.out(line);
    return exit.refused;
  }
  if (asJson) json(io, reply);
  else if (reply.status === 'value') for (const line of valueLines(reply as ValueReply)) io.out(line);
  else for (const line of turnLines(reply as TurnReply)) io.out(line.slice(2));
  return reply.status === 'refused' ? exit.refused : exit.ok;
}
