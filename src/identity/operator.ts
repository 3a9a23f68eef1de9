/**
 * The operator's invitation commands (src/cli/operator.ts is their command line): issue a code,
 * revoke one, list them. Codes are shown once, when issued; the store keeps only their hashes.
 */
import { invitationDecider, invitationStatus, type InvitationState, type InvitationStatus } from '../commands/invitation.js';
import { decodeEvent, InvitationEvent, streams } from '../events/identity.js';
import type { Clock } from '../contract/clock.js';
import type { EventStore } from '../stores/event-store.js';
import { invitationKind } from './kinds.js';
import { invitationPrefix, newInvitationCode, sha256Hex } from './secrets.js';
import { handleCommand } from '../commands/streams.js';

export const defaultInvitationLifetimeMs = 7 * 24 * 3600_000;

export class OperatorError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'OperatorError';
  }
}

export interface IssuedInvitation {
  code: string;
  codeHash: string;
  guest: string | null;
  expires: number;
}

export async function issueInvitation(
  store: EventStore,
  clock: Clock,
  options: { guest: string | null; lifetimeMs: number; code?: string },
): Promise<IssuedInvitation> {
  const code = options.code ?? newInvitationCode();
  const codeHash = sha256Hex(code);
  const now = clock();
  const expires = now + options.lifetimeMs;
  const result = await handleCommand(store, streams.invitation(codeHash), invitationKind, { type: 'issue', codeHash, guest: options.guest, expires, now });
  if (!result.ok) throw new OperatorError(result.reason, `cannot issue the invitation: ${result.reason}`);
  return { code, codeHash, guest: options.guest, expires };
}

export interface InvitationRow {
  codeHash: string;
  guest: string | null;
  status: InvitationStatus;
  expires: number;
  issuedAt: number;
  /** The guest admitted by a spent invitation. */
  spentBy?: string;
}

/**
 * Every invitation, oldest first. The operator's listing reads the whole journal: it is a rare
 * command, and the identity room keeps no read model of invitations.
 */
export async function listInvitations(store: EventStore, clock: Clock): Promise<InvitationRow[]> {
  const states = new Map<string, InvitationState>();
  for await (const recorded of store.readAll()) {
    if (!recorded.stream.startsWith('invitation-')) continue;
    const hash = recorded.stream.slice('invitation-'.length);
    const event = decodeEvent(InvitationEvent, recorded);
    states.set(hash, invitationDecider.evolve(states.get(hash) ?? invitationDecider.initialState(), event));
  }
  const now = clock();
  const rows: InvitationRow[] = [];
  for (const [codeHash, state] of states) {
    if (state.kind === 'absent') continue;
    rows.push({
      codeHash,
      guest: state.issued.guest,
      status: invitationStatus(state, now),
      expires: state.issued.expires,
      issuedAt: state.issued.issuedAt,
      ...(state.kind === 'spent' ? { spentBy: state.name } : {}),
    });
  }
  return rows;
}

/** Shortest hash prefix the operator may name an invitation by. */
export const minimumPrefix = 6;

/** Revoke by the code itself or by a prefix of its hash (as `invites` lists it). */
export async function revokeInvitation(store: EventStore, clock: Clock, codeOrPrefix: string): Promise<string> {
  const codeHash = await resolveInvitation(store, clock, codeOrPrefix);
  const now = clock();
  const result = await handleCommand(store, streams.invitation(codeHash), invitationKind, { type: 'revoke', now });
  if (!result.ok) throw new OperatorError(result.reason, `cannot revoke ${codeHash.slice(0, 12)}: ${result.reason}`);
  return codeHash;
}

async function resolveInvitation(store: EventStore, clock: Clock, codeOrPrefix: string): Promise<string> {
  if (codeOrPrefix.startsWith(invitationPrefix)) return sha256Hex(codeOrPrefix);
  const prefix = codeOrPrefix.toLowerCase();
  if (!/^[0-9a-f]+$/.test(prefix) || prefix.length < minimumPrefix) {
    throw new OperatorError('invitation_unknown', `give the code (${invitationPrefix}…) or at least ${minimumPrefix} hex digits of its hash`);
  }
  const matches = (await listInvitations(store, clock)).filter((row) => row.codeHash.startsWith(prefix));
  if (matches.length === 0) throw new OperatorError('invitation_unknown', `no invitation's hash begins ${prefix}`);
  if (matches.length > 1) throw new OperatorError('ambiguous', `${matches.length} invitations' hashes begin ${prefix}; give more digits`);
  return matches[0]!.codeHash;
}

const units: Record<string, number> = { s: 1000, m: 60_000, h: 3600_000, d: 24 * 3600_000, w: 7 * 24 * 3600_000 };

/** `7d`, `12h`, `30m`, `90s`, `2w`: a positive whole number and one unit. */
export function parseDuration(text: string): number | undefined {
  const match = /^([1-9][0-9]{0,6})([smhdw])$/.exec(text.trim());
  return match ? Number(match[1]) * units[match[2]!]! : undefined;
}
