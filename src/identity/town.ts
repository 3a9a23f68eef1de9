/**
 * The town's own settings kept as events, so that every front reads the same: whether it is
 * open (`town-config`), and the first invitation of a fresh town (`town-founding`).
 */
import { isOpen } from '../commands/town-mode.js';
import { streams } from '../events/identity.js';
import type { Clock } from '../contract/clock.js';
import type { EventStore } from '../stores/event-store.js';
import { foundingKind, townModeKind } from './kinds.js';
import { defaultInvitationLifetimeMs, issueInvitation } from './operator.js';
import { newInvitationCode, sha256Hex } from './secrets.js';
import { fold, handleCommand } from '../commands/streams.js';

/** Whether the town is open now (an invited town until someone opens it). */
export async function readTownOpen(store: EventStore): Promise<boolean> {
  return isOpen((await fold(store, streams.townConfig, townModeKind)).state);
}

/** Open or close the town; true when that changed anything. */
export async function setTownOpen(store: EventStore, clock: Clock, open: boolean): Promise<boolean> {
  const now = clock();
  const result = await handleCommand(store, streams.townConfig, townModeKind, { type: 'setMode', open, now });
  return result.ok && result.events.length > 0;
}

/**
 * At start: TOWN_OPEN given (true or false) sets the mode, recorded as an event like the
 * operator's `open`/`invited`; absent, the town keeps the mode it had. Answers the mode now.
 */
export async function applyStartupMode(store: EventStore, clock: Clock, open: boolean | undefined): Promise<boolean> {
  if (open !== undefined) await setTownOpen(store, clock, open);
  return readTownOpen(store);
}

/**
 * A fresh town makes one open invitation, once: the first front to found the town makes it
 * and gets the code back (to print); every later start, on any front, gets undefined.
 */
export async function ensureFirstInvitation(store: EventStore, clock: Clock): Promise<string | undefined> {
  const founding = await fold(store, streams.townFounding, foundingKind);
  if (founding.state.kind === 'founded') return undefined;
  // The code is made before the founding is recorded, so the record can name its hash; a
  // front that loses the founding race throws its code away before anyone saw it.
  const code = newInvitationCode();
  const codeHash = sha256Hex(code);
  const now = clock();
  const founded = await handleCommand(store, streams.townFounding, foundingKind, { type: 'found', invitationHash: codeHash, now });
  if (!founded.ok || founded.events.length === 0) return undefined;
  await issueInvitation(store, clock, { guest: null, lifetimeMs: defaultInvitationLifetimeMs, code });
  return code;
}
