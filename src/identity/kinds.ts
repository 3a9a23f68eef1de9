/**
 * Each identity stream category: the codec its events are decoded through, and its decider
 * (src/commands, in the one Decider shape of src/contract/decider.ts).
 */
import { proofDecider } from '../commands/arrival.js';
import { credentialDecider } from '../commands/credential.js';
import { guestDecider } from '../commands/guest.js';
import { invitationDecider } from '../commands/invitation.js';
import { sessionDecider } from '../commands/session.js';
import { handleChallengeDecider } from './handle-challenge.js';
import { foundingDecider, townModeDecider } from '../commands/town-mode.js';
import {
  CredentialEvent,
  GuestEvent,
  HandleChallengeEvent,
  InvitationEvent,
  ProofEvent,
  SessionEvent,
  TownConfigEvent,
  TownFoundingEvent,
} from '../events/identity.js';

export const invitationKind = { codec: InvitationEvent, decider: invitationDecider };
export const guestKind = { codec: GuestEvent, decider: guestDecider };
export const proofKind = { codec: ProofEvent, decider: proofDecider };
export const credentialKind = { codec: CredentialEvent, decider: credentialDecider };
export const sessionKind = { codec: SessionEvent, decider: sessionDecider };
export const townModeKind = { codec: TownConfigEvent, decider: townModeDecider };
export const foundingKind = { codec: TownFoundingEvent, decider: foundingDecider };
export const handleChallengeKind = { codec: HandleChallengeEvent, decider: handleChallengeDecider };
