/**
 * A town serving the earlier catalogue shape (spec 9) for the tests of test/earlier. Its guests
 * are admitted by the identity service directly (the earlier shape has no `accept`), unless a
 * test goes through challenge and verify itself.
 */
import { IdentityService } from '../../src/identity/service.js';
import { issueInvitation } from '../../src/identity/operator.js';
import { type Guest, startTestTown, type TestTown } from '../world/support.js';

export async function startEarlierTown(o: Parameters<typeof startTestTown>[0] = {}): Promise<TestTown> {
  return startTestTown({ ...o, settings: { ...o.settings, catalogue: 'earlier' } });
}

/** A guest admitted without the HTTP `accept` route. */
export async function earlierGuest(t: TestTown, name: string): Promise<Guest> {
  const { code } = await issueInvitation(t.town.events, t.clock, { guest: null, lifetimeMs: 86_400_000 });
  const identity = new IdentityService({ store: t.town.events, config: t.town.config, clock: t.clock });
  const a = await identity.accept(code, name);
  return { name, token: a.credential, principal: a.principal };
}
