/** The `identity` error class (spec 7.1, 4.1): `message` is the reason, also named in `reason`. */
import type { ArriveReason } from '../commands/arrival.js';
import type { AcceptReason } from '../commands/invitation.js';
import type { HandleChallengeReason } from './handle-challenge.js';
import { TownError } from '../contract/town-error.js';

export type IdentityReason = AcceptReason | ArriveReason | HandleChallengeReason;

const hints: Record<IdentityReason, string> = {
  invalid_guest_name: 'a name is 1 to 32 characters: a lowercase letter, then lowercase letters, digits or hyphens, ending in a letter or digit',
  invitation_expired: 'the code lapsed unused; ask the town for a new one',
  invitation_revoked: 'the town withdrew this code; ask the town for a new one',
  invitation_spent: 'the code was accepted already; each code admits one guest',
  invitation_unknown: 'no such code; codes begin svc_invite_ and are sent whole',
  name_fixed: 'this code names its guest: send no name, or exactly that one',
  name_required: 'this code names no one: send the name to claim with it',
  taken: 'that name belongs to another guest; choose another',
  proof_expired: 'challenges last ten minutes; GET /AGENTS.md/arrive for a new one',
  proof_invalid: 'send the challenge exactly as given, and a nonce of 1 to 64 printable ASCII characters',
  proof_short: 'SHA-256 of <challenge>:<name>:<nonce> must begin with `bits` zero bits, for the name sent',
  proof_spent: 'this challenge already admitted a guest; GET /AGENTS.md/arrive for a new one',
  // The earlier catalogue shape's handle challenges (spec 9).
  invalid_handle: 'a handle is a guest name (a lowercase letter, then lowercase letters, digits or hyphens) or <name>.<host>',
  challenge_unknown: 'no such challenge; POST /AGENTS.md/challenge {handle} for one',
  challenge_expired: 'a challenge must be posted and verified within 15 minutes; POST /AGENTS.md/challenge for a new one',
  challenge_spent: 'this challenge was verified already; its credential speaks for you',
  handle_mismatch: 'the post answers a challenge for another handle; verify with the handle you asked the challenge for',
  post_unknown: 'the uri names no post of this town\u2019s feed; send the at:// uri the post answered',
  post_text: 'the post must say exactly the challenge text, and nothing else',
  post_author: 'the post must be made from the handle the challenge is for',
};

export function identityRefusal(reason: IdentityReason): TownError {
  return new TownError('identity', reason, { hint: hints[reason], fields: { reason } });
}
