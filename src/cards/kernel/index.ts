/**
 * The kernel: pure TypeScript that turns a world and a command into the outcome of a turn
 * (`decide`), and a journal entry into the next world (`evolve`). No clock, no I/O inside.
 */
export { decide, worldDecider, type WorldContext } from './decide.js';
export { answerOf, journal } from './outcome.js';
export type { Outcome, Answer, Receipt, TryReport, HostRequest, ReceiptRef } from './outcome.js';
export { receiptOf, refusedBody } from './receipt.js';
export { seal } from './seal.js';
export { requestFingerprint } from './turn/request.js';
export { deliverOne } from './deciders/deliver.js';
export type {
  Command,
  TurnCommand,
  DeliverCommand,
  ArriveCommand,
  GenesisCommand,
  EmptyCommand,
  ForkCommand,
  CreateCommand,
  ReplCommand,
  CheckCommand,
  CiteCommand,
} from './commands.js';
export { evolve, replay, applyWrite, JournalGap } from './evolve.js';
export {
  blankWorld,
  layered,
  canSee,
  visibleCard,
  visibleIds,
  cardsIn,
  newestLines,
  turnsThisHour,
  receiptsBySlug,
  receiptByIntent,
  offersFor,
  pendingSends,
  intentKey,
  TOWN,
  linesKept,
  offersKept,
  hourOf,
  hourMs,
  turnsLeft,
} from './world.js';
export type { World, IntentRecord, ReceiptRecord, OfferRecord, RunRecord, TurnCount } from './world.js';
export * from './entry.js';
export { contentId, slugOfCid, slugWords, fingerprint, stableJson, canonicalBytes } from './content-id.js';
export { parseSpell, showValue } from './spell.js';
export type { Spell, Cast, Plan, SpellValue, SpellItem, SpellFault, ParseResult } from './spell.js';
export { fromFields, fromSpell, checkArgument, templateOf, blank } from './fields.js';
export { hostForms, hostTemplate, isHost } from './host.js';
export { programCache, type Carried } from './programs.js';
export { libraryPrograms, libraryKinds, compileInput } from './library.js';
export { roomOf, nameOf } from './turn.js';
export type { Programs, PackageSource } from './programs.js';
export { defaultOptions } from './options.js';
export type { KernelOptions, Allowances } from './options.js';
export { genesisTown, genesisEntry, emptyEntry, forkEntry, libraryPackages } from './genesis.js';
export type { TownLayout, LayoutCard } from './genesis.js';
export type { Refusal } from './refusal.js';
export { sameData, applySeed } from './seed.js';
export { cardProgram, actionsOf, formsOf, lawLines, drawView } from './reading.js';
