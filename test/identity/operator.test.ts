/** The operator's command line and the town's settings, on the embedded store. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runOperator } from '../../src/cli/operator.js';
import type { TownError } from '../../src/contract/town-error.js';
import { issueInvitation, listInvitations, parseDuration, revokeInvitation } from '../../src/identity/operator.js';
import { sha256Hex } from '../../src/identity/secrets.js';
import { IdentityService } from '../../src/identity/service.js';
import { applyStartupMode, ensureFirstInvitation, readTownOpen } from '../../src/identity/town.js';
import { secret, tempStore, testClock, type TempStore } from './support.js';

const test = suite<{ temp: TempStore; clock: ReturnType<typeof testClock>; out: string[]; err: string[] }>('operator');

test.before.each(async (ctx) => {
  ctx.temp = await tempStore();
  ctx.clock = testClock();
  ctx.out = [];
  ctx.err = [];
});
test.after.each(async (ctx) => {
  await ctx.temp.cleanup();
});

const run = (ctx: { temp: TempStore; clock: () => number; out: string[]; err: string[] }, ...argv: string[]) =>
  runOperator(argv[0]!, argv.slice(1), { store: ctx.temp.store, clock: ctx.clock, out: (l) => ctx.out.push(l), err: (l) => ctx.err.push(l) });

const service = (ctx: { temp: TempStore; clock: () => number }) =>
  new IdentityService({ store: ctx.temp.store, config: { host: 'h', secret }, clock: ctx.clock });

async function reason(promise: Promise<unknown>) {
  return promise.then(
    () => 'admitted',
    (e: TownError) => String(e.extra.fields?.reason),
  );
}

test('invite prints a code once that accept takes; invites lists it by hash prefix', async (ctx) => {
  assert.is(await run(ctx, 'invite', '--name', 'grace', '--expires', '12h'), 0);
  const code = ctx.out[0]!;
  assert.match(code, /^svc_invite_[a-z2-7]{32}$/);
  ctx.out.length = 0;
  assert.is(await run(ctx, 'invites'), 0);
  const row = ctx.out[1]!;
  assert.ok(row.startsWith(sha256Hex(code).slice(0, 12)), row);
  assert.match(row, /grace/);
  assert.match(row, /unused/);
  assert.match(row, new RegExp(new Date(ctx.clock() + 12 * 3600_000).toISOString()));
  assert.not.match(ctx.out.join('\n') + ctx.err.join('\n'), code.slice(11), 'the listing never shows a code');
  assert.is((await service(ctx).accept(code, undefined)).name, 'grace');
  ctx.out.length = 0;
  await run(ctx, 'invite');
  ctx.out.length = 0;
  await run(ctx, 'invites');
  assert.match(ctx.out.join('\n'), /spent by grace/);
  // An aligned table: every column starts at the same place on every line.
  const starts = (line: string) => [...line.matchAll(/(?<= {2})\S/g)].map((m) => m.index);
  assert.is(ctx.out.length, 3);
  assert.equal(starts(ctx.out[1]!), starts(ctx.out[0]!));
  assert.equal(starts(ctx.out[2]!), starts(ctx.out[0]!));
  assert.match(ctx.out[0]!, /^hash {10}guest {3}state {11}expires$/);
});

test('invite refuses a bad name, a bad duration, an unknown flag', async (ctx) => {
  assert.is(await run(ctx, 'invite', '--name', 'Grace'), 2);
  assert.is(await run(ctx, 'invite', '--expires', 'soon'), 2);
  assert.is(await run(ctx, 'invite', '--expires', '0d'), 2);
  assert.is(await run(ctx, 'invite', '--colour', 'red'), 2);
  assert.is(await run(ctx, 'invite', '--name'), 2);
  assert.is(await run(ctx, 'frobnicate'), 2);
  assert.equal(await listInvitations(ctx.temp.store, ctx.clock), []);
});

test('revoke-invite by code or hash prefix; a revoked code is refused; a spent one cannot be revoked', async (ctx) => {
  await run(ctx, 'invite');
  await run(ctx, 'invite');
  const [first, second] = ctx.out as [string, string];
  assert.is(await run(ctx, 'revoke-invite', sha256Hex(first).slice(0, 8)), 0);
  assert.is(await reason(service(ctx).accept(first, 'ada')), 'invitation_revoked');
  await service(ctx).accept(second, 'bea');
  assert.is(await run(ctx, 'revoke-invite', second), 1);
  assert.match(ctx.err.at(-1)!, /invitation_spent/);
  assert.is(await run(ctx, 'revoke-invite', 'svc_invite_nosuchcode'), 1);
  assert.is(await run(ctx, 'revoke-invite', 'abc'), 1, 'too short a prefix');
  assert.is(await run(ctx, 'revoke-invite', 'ffffffffff'), 1);
});

test('an ambiguous hash prefix names no invitation', async (ctx) => {
  // Two codes whose hashes share their first six hex digits (a birthday search of a few thousand).
  const seen = new Map<string, string>();
  let pair: [string, string] | undefined;
  for (let i = 0; !pair; i++) {
    const code = `svc_invite_test${i}`;
    const prefix = sha256Hex(code).slice(0, 6);
    const other = seen.get(prefix);
    if (other) pair = [other, code];
    seen.set(prefix, code);
  }
  for (const code of pair) await issueInvitation(ctx.temp.store, ctx.clock, { guest: null, lifetimeMs: 1000, code });
  const prefix = sha256Hex(pair[0]).slice(0, 6);
  await revokeInvitation(ctx.temp.store, ctx.clock, prefix).then(
    () => assert.unreachable('ambiguous'),
    (e: Error) => assert.match(e.message, /2 invitations/),
  );
  assert.ok((await listInvitations(ctx.temp.store, ctx.clock)).every((row) => row.status === 'unused'));
});

test('an invitation past its expiry lists as expired and is refused invitation_expired', async (ctx) => {
  await run(ctx, 'invite', '--expires', '30m');
  const code = ctx.out[0]!;
  ctx.clock.advance(30 * 60_000);
  assert.is((await listInvitations(ctx.temp.store, ctx.clock))[0]!.status, 'expired');
  assert.is(await reason(service(ctx).accept(code, 'ada')), 'invitation_expired');
});

test('open and invited switch the town, recorded as events', async (ctx) => {
  assert.is(await readTownOpen(ctx.temp.store), false);
  assert.is(await run(ctx, 'open'), 0);
  assert.is(await readTownOpen(ctx.temp.store), true);
  assert.is(await run(ctx, 'open'), 0);
  assert.match(ctx.out.at(-1)!, /already/);
  assert.is(await run(ctx, 'invited'), 0);
  assert.is(await readTownOpen(ctx.temp.store), false);
  assert.is(await ctx.temp.store.streamRevision('town-config'), 1n, 'two changes, the repeat recorded nothing');
});

test('TOWN_OPEN at start sets the mode; without it the town keeps its own; it survives a restart', async (ctx) => {
  assert.is(await applyStartupMode(ctx.temp.store, ctx.clock, undefined), false);
  assert.is(await applyStartupMode(ctx.temp.store, ctx.clock, true), true);
  await ctx.temp.reopen();
  assert.is(await applyStartupMode(ctx.temp.store, ctx.clock, undefined), true);
  assert.is(await applyStartupMode(ctx.temp.store, ctx.clock, false), false);
});

test('a fresh town makes its first open invitation once, even across restarts and racing fronts', async (ctx) => {
  const codes = await Promise.all([1, 2, 3].map(() => ensureFirstInvitation(ctx.temp.store, ctx.clock)));
  const made = codes.filter((c): c is string => c !== undefined);
  assert.is(made.length, 1, String(codes));
  await ctx.temp.reopen();
  assert.is(await ensureFirstInvitation(ctx.temp.store, ctx.clock), undefined);
  const rows = await listInvitations(ctx.temp.store, ctx.clock);
  assert.is(rows.length, 1);
  assert.is(rows[0]!.guest, null);
  assert.is((await service(ctx).accept(made[0], 'founder')).name, 'founder');
});

test('durations', () => {
  assert.is(parseDuration('7d'), 7 * 24 * 3600_000);
  assert.is(parseDuration('12h'), 12 * 3600_000);
  assert.is(parseDuration('30m'), 30 * 60_000);
  assert.is(parseDuration('90s'), 90_000);
  assert.is(parseDuration('2w'), 14 * 24 * 3600_000);
  for (const bad of ['', '7', 'd', '0d', '-1d', '1.5h', '7 days', '99999999d']) assert.is(parseDuration(bad), undefined, bad);
});

test.run();
