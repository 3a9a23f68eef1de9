/**
 * The turn reply module (src/queries/turn-reply.ts): every kind of turn outcome rendered as
 * spec 2.5 says (done with deliveries, refused and journaled, refused and not journaled, a
 * repeat, a try, compact and full). The world handlers answer these bodies plus their links, and
 * the command line prints the same bodies.
 */
import { isRight } from 'fp-ts/lib/Either.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TurnCommand } from '../../src/cards/kernel/commands.js';
import { decide } from '../../src/cards/kernel/decide.js';
import { answerOf } from '../../src/cards/kernel/outcome.js';
import type { Entry } from '../../src/cards/kernel/entry.js';
import { evolve } from '../../src/cards/kernel/evolve.js';
import { defaultOptions } from '../../src/cards/kernel/options.js';
import { sealedLibrary } from '../../src/cards/library/index.js';
import { TownError } from '../../src/contract/town-error.js';
import { envelope } from '../../src/contract/envelope.js';
import { CheckReplyC, checkOutcomeReply, checkReply } from '../../src/queries/check-reply.js';
import { CompactTurnReplyC, hostRequestError, outcomeReply, TryReplyC, TurnReplyC } from '../../src/queries/turn-reply.js';
import { guestPrincipal, scratchPrograms, ScratchWorld } from '../../src/cli/card-scratch.js';

const ann = guestPrincipal('ann');
const bob = guestPrincipal('bob');
const T = Date.UTC(2026, 10, 23, 12);

function lampWorld(): ScratchWorld {
  const w = new ScratchWorld(ann, () => T);
  const lamp = sealedLibrary().modules.get('lamp')!;
  const made = w.create({ principal: ann, object: 'lamp', modules: [lamp] });
  assert.is(made.outcome.kind, 'journal');
  return w;
}

const keysOf = (o: object) => Object.keys(o);

test("done and refused turns: spec 2.5 fields in order, a refusal's own fields beside them, full and compact forms", () => {
  const w = lampWorld();
  const light = w.cast(ann, 'lamp', 'light', false);
  const lit = w.cast(ann, 'lamp', 'light', false); // the card refuses: journaled
  assert.is(w.create({ principal: ann, object: 'postbox', modules: [sealedLibrary().modules.get('postbox')!] }).outcome.kind, 'journal');
  const give = w.cast(ann, 'postbox', 'post to=postbox text=hi copies=1', false); // a send, delivered after the turn
  const twelve = w.cast(ann, 'lamp', 'fill 12', false); // badSpell with a hint

  const done = outcomeReply(light.outcome, { height: light.height }) as Record<string, unknown>;
  assert.equal(keysOf(done), ['status', 'line', 'revealed', 'offers', 'receipt']);
  assert.is(done.status, 'done');
  assert.is(done.line, 'ann.town lights the lamp');
  assert.equal(done.offers, []);
  const receipt = done.receipt as { slug: string; height: number };
  assert.is(receipt.height, 2);
  assert.match(receipt.slug, /^[a-z]+-[a-z]+-[a-z]+$/);

  const refused = outcomeReply(lit.outcome, { height: lit.height }) as Record<string, unknown>;
  assert.equal(keysOf(refused), ['status', 'class', 'line', 'offers', 'receipt', 'hintKind', 'clause', 'reason', 'reading', 'object']);
  assert.is(refused.hintKind, 'source', 'spec 7.2: where to look next (a card refusing by its rules: read its source)');
  assert.equal([refused.class, refused.clause, refused.reading], ['cardRefused', 'lit', 'the lamp is already lit']);
  assert.is(refused.reason, 'refused lit: the lamp is already lit');
  assert.type((refused.receipt as { slug: unknown }).slug, 'string', 'a refused turn is a receipt');
  assert.not.ok('journaled' in refused);

  const hinted = outcomeReply(twelve.outcome, { height: twelve.height }) as Record<string, unknown>;
  assert.equal([hinted.class, hinted.clause, hinted.hint], ['badSpell', 'badValue', 'fill measures=<natural 0..9>']);

  assert.ok(give.deliveries?.length, 'the give was delivered');
  const delivered = outcomeReply(give.outcome, { height: give.height, deliveries: give.deliveries }) as Record<string, unknown>;
  const line = (delivered.delivered as Record<string, unknown>[])[0]!;
  assert.equal([line.object, line.method, line.status, line.class], ['postbox', 'receive', 'refused', 'badSpell']);
  assert.is(line.height, give.deliveries![0]!.height);

  const full = outcomeReply(light.outcome, { height: light.height, full: true }) as Record<string, unknown>;
  assert.type((full.receipt as { cid: unknown }).cid, 'string');
  const whole = full.whole as { usage: { ticks: number }; method: string; result: unknown };
  assert.ok(whole.usage.ticks > 0);
  assert.is(whole.method, 'light');
  assert.equal(whole.result, { tag: 'record', fields: [] });

  const compact = outcomeReply(lit.outcome, { height: lit.height, compact: true }) as Record<string, unknown>;
  assert.equal(keysOf(compact), ['status', 'class', 'outcome', 'offers', 'receipt']);
  assert.is(compact.outcome, 'refused lit: the lamp is already lit');

  for (const [d, c] of [
    [light, TurnReplyC],
    [lit, TurnReplyC],
    [give, TurnReplyC],
    [twelve, TurnReplyC],
  ] as const) {
    assert.ok(isRight(c.decode(outcomeReply(d.outcome, { height: d.height, full: true, ...(d.deliveries ? { deliveries: d.deliveries } : {}) }))));
    assert.ok(isRight(CompactTurnReplyC.decode(outcomeReply(d.outcome, { height: d.height, compact: true }))));
  }
});

test('refusals nothing journaled (moved, duplicateIdentity), a repeat, a try', () => {
  const w = lampWorld();
  const turn = (extra: Partial<TurnCommand>): TurnCommand => ({
    kind: 'turn',
    principal: ann,
    intent: 'i1',
    object: 'lamp',
    method: 'receive',
    spell: 'light',
    ...extra,
  });
  const applied: Entry[] = [];
  // As the world service answers: a repeat's first receipt read back from the journal.
  const run = (c: TurnCommand) => {
    const o = decide(w.world, c, T, scratchPrograms(), defaultOptions);
    return answerOf(o, o.kind === 'repeat' ? applied.find((e) => e.height === o.first.height) : undefined);
  };
  const first = run(turn({}));
  assert.is(first.kind, 'journal');
  if (first.kind === 'journal')
    for (const e of first.entries) {
      evolve(w.world, e);
      applied.push(e);
    }
  const h = w.world.height;

  const repeat = outcomeReply(run(turn({})), { height: h }) as Record<string, unknown>;
  assert.is(repeat.repeated, true);
  assert.equal(repeat.receipt, { slug: (outcomeReply(first, { height: h }) as { receipt: { slug: string } }).receipt.slug, height: 2 });

  const duplicate = outcomeReply(run(turn({ spell: 'douse' })), { height: h }) as Record<string, unknown>;
  assert.is(duplicate.class, 'duplicateIdentity');
  assert.is(duplicate.journaled, false);
  assert.type(duplicate.original, 'string');

  const moved = outcomeReply(run(turn({ intent: 'i2', if: [{ object: 'lamp', version: 1 }] })), { height: h }) as Record<string, unknown>;
  assert.is(moved.class, 'moved');
  assert.is(moved.journaled, false);
  assert.equal(moved.receipt, { slug: null, height: h });

  const unseen = outcomeReply(run(turn({ principal: bob, intent: 'b1' })), { height: h }) as Record<string, unknown>;
  assert.is(unseen.class, 'unknownObject');

  const tried = outcomeReply(run(turn({ intent: 'i3', spell: 'douse', try: true })), { height: h }) as Record<string, unknown>;
  assert.ok(isRight(TryReplyC.decode(tried)));
  assert.equal([tried.try, tried.journaled, tried.status], [true, false, 'done']);
  assert.equal(tried.receipt, { slug: null, height: h });
  assert.equal(tried.roots, [{ object: 'lamp', version: 2 }]);
  assert.is((tried.writes as unknown[]).length, 1);
  const triedRefused = outcomeReply(run(turn({ intent: 'i4', spell: 'light', try: true })), { height: h }) as Record<string, unknown>;
  assert.equal([triedRefused.status, triedRefused.class, triedRefused.clause], ['refused', 'cardRefused', 'lit']);
  assert.equal(triedRefused.writes, []);
  assert.is(w.world.height, h, 'a try journals nothing');
});

test('a rejected request is hostRequest, with the compile error hint as the envelope hint', () => {
  const w = new ScratchWorld(ann, () => T);
  const made = w.create({
    principal: ann,
    object: 'x',
    modules: [{ name: 'x', source: 'type X:\n  n: Natural\n\ndef initial() -> X:\n  return X { n: "one" }\n' }],
  });
  assert.is(made.outcome.kind, 'rejected');
  let thrown: unknown;
  try {
    outcomeReply(made.outcome, { height: 1 });
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown instanceof TownError);
  const body = envelope(thrown as TownError, '/x').body;
  assert.is(body.class, 'hostRequest');
  assert.is(body.status, 'error');
  assert.is(body.stage, 'type');
  assert.type(body.hint, 'string');
  assert.ok(Array.isArray(body.diagnostics));
  assert.equal(envelope(hostRequestError({ class: 'hostRequest', message: 'give source or modules' }), '/x').body.message, 'give source or modules');
});

test('check reply: checked with every diagnostic, ok exactly when there are none; a malformed check is hostRequest', () => {
  const programs = scratchPrograms();
  const check = (modules: { name: string; source: string }[]) => decide(w0, { kind: 'check', modules }, T, programs, defaultOptions);
  const w0 = new ScratchWorld(ann, () => T).world;
  const good = checkOutcomeReply(check([{ name: 'm', source: 'def f() -> Natural:\n  return 1\n' }]));
  assert.equal(good, { status: 'checked', ok: true, diagnostics: [] });
  const bad = checkOutcomeReply(check([{ name: 'm', source: 'def f() -> Natural:\n  return "one"\n' }]));
  assert.is(bad.ok, false);
  assert.ok(isRight(CheckReplyC.decode(bad)));
  assert.is(bad.diagnostics[0]!.module, 'm');
  assert.is(bad.diagnostics[0]!.line, 2);
  assert.not.ok(isRight(CheckReplyC.decode({ ...bad, diagnostics: [{ ...bad.diagnostics[0], stage: 'vibes' }] })), 'stages are the language stages');
  assert.throws(
    () => checkOutcomeReply(check([])),
    (e: unknown) => e instanceof TownError && e.cls === 'hostRequest',
  );
  assert.equal(checkReply([{ stage: 'parse', module: 'm', line: 1, column: 2, endLine: 1, endColumn: 3, message: 'm' }]).diagnostics[0], {
    stage: 'parse',
    module: 'm',
    line: 1,
    column: 2,
    endLine: 1,
    endColumn: 3,
    message: 'm',
  });
});

test.run();
