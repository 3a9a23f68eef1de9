/** Each identity stream category: the codec its events are decoded through, and its fold. */
import { evolveProof, initialProof, type ProofState } from '../commands/arrival.js';
import { evolveCredential, initialCredential, type CredentialState } from '../commands/credential.js';
import { evolveGuest, initialGuest, type GuestState } from '../commands/guest.js';
import { evolveInvitation, initialInvitation, type InvitationState } from '../commands/invitation.js';
import { evolveSession, initialSession, type SessionState } from '../commands/session.js';
import { evolveFounding, evolveTownMode, initialFounding, initialTownMode, type FoundingState, type TownModeState } from '../commands/town-mode.js';
import { CredentialEvent, GuestEvent, InvitationEvent, ProofEvent, SessionEvent, TownConfigEvent, TownFoundingEvent } from '../events/identity.js';
import type { StreamKind } from './streams.js';

export const invitationKind: StreamKind<InvitationState, InvitationEvent> = { codec: InvitationEvent, evolve: evolveInvitation, initial: initialInvitation };
export const guestKind: StreamKind<GuestState, GuestEvent> = { codec: GuestEvent, evolve: evolveGuest, initial: initialGuest };
export const proofKind: StreamKind<ProofState, ProofEvent> = { codec: ProofEvent, evolve: evolveProof, initial: initialProof };
export const credentialKind: StreamKind<CredentialState, CredentialEvent> = { codec: CredentialEvent, evolve: evolveCredential, initial: initialCredential };
export const sessionKind: StreamKind<SessionState, SessionEvent> = { codec: SessionEvent, evolve: evolveSession, initial: initialSession };
export const townModeKind: StreamKind<TownModeState, TownConfigEvent> = { codec: TownConfigEvent, evolve: evolveTownMode, initial: initialTownMode };
export const foundingKind: StreamKind<FoundingState, TownFoundingEvent> = { codec: TownFoundingEvent, evolve: evolveFounding, initial: initialFounding };
