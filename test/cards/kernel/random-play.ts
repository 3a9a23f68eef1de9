/**
 * Random play: sequences of turns on random library cards (casts by fields, by spell, by typed
 * argument, host spells, plans, tries, stale roots, reused intents, quiets, deliveries,
 * arrivals), for the properties that hold of any journal (replay.test.ts, carry.test.ts).
 */
import type { Command } from '../../../src/cards/kernel/commands.js';
import type { FormField } from '../../../src/cards/program.js';
import { Harness, HOST, ann, bob, mayor } from './harness.js';
import { rng } from './random.js';

const cat = `guest:${HOST}:cat`;
export const guests = [ann, bob, cat, mayor];

export type R = ReturnType<typeof rng>;

function value(r: R, f: FormField, ids: string[]): unknown {
  const form = f.form;
  switch (form.kind) {
    case 'natural':
      return r.chance(0.9) ? form.min + r.int(Math.min(form.max - form.min + 1, 20)) : r.pick([-1, form.max + 1, 'x', 1.5]);
    case 'text':
      return r.chance(0.9) ? r.pick(['hi', 'a note', 'fair on sunday', 'x'.repeat(Math.max(form.min, 1)), '']) : 'y'.repeat(form.max + 1);
    case 'object':
      return r.chance(0.9) ? r.pick([...ids, 'me', 'here']) : 'bad id!';
    case 'oneOf':
      return r.pick([...form.options, 'nope']);
    case 'boolean':
      return r.pick([true, false, 'maybe']);
  }
}

function spellValue(v: unknown): string {
  return typeof v === 'string' && !/^[A-Za-z0-9._:/-]+$/.test(v) ? JSON.stringify(v) : String(v);
}

/** One random command against the world as it stands. */
export function randomCommand(h: Harness, r: R, used: { principal: string; cmd: Command }[]): Command {
  const w = h.world;
  const ids = [...w.cards.keys()];
  const principal = r.pick(guests);
  const roll = r.next();
  if (roll < 0.05) return { kind: 'arrive', principal, name: principal.slice(principal.lastIndexOf(':') + 1) };
  if (roll < 0.12) return { kind: 'deliver', max: 1 + r.int(16) };
  if (roll < 0.16 && used.length) {
    const old = r.pick(used);
    if (r.chance(0.5)) return old.cmd;
    return { ...(old.cmd as Extract<Command, { kind: 'turn' }>), method: 'douse', fields: undefined, spell: undefined, argument: undefined };
  }
  const object = r.chance(0.95) ? r.pick(ids) : 'no-such-card';
  const intent = `${principal.slice(-3)}-${w.height}-${r.int(1_000_000)}`;
  const card = w.cards.get(object);
  const base = { kind: 'turn' as const, principal, intent, object };
  const extra: { try?: boolean; if?: { object: string; version: number }[] } = {};
  if (r.chance(0.08)) extra.try = true;
  if (card && r.chance(0.08)) extra.if = [{ object, version: card.version - (r.chance(0.5) ? 1 : 0) }];
  if (roll < 0.22) {
    const kind = r.pick([...w.kinds.keys(), 'unicorn']);
    const spell = r.pick([
      `make ${kind}`,
      `become ${kind}`,
      `become ${kind} law none`,
      'adopt',
      `lend ${object} to bob`,
      `quiet ${r.pick(['ann', 'bob', 'cat'])} until ${h.clock + r.int(5) * 60_000} -- hush`,
      `plan { make note; {made 1}: write text=hello }`,
      `plan { make ${kind}; give to={made 1} }`,
    ]);
    return { ...base, ...extra, principal: spell.startsWith('quiet') && r.chance(0.7) ? mayor : principal, method: 'receive', spell };
  }
  const pkg = card ? w.packages.get(card.pin) : undefined;
  const program = pkg ? h.programs.load(pkg, pkg.pin) : undefined;
  const methods = program?.ok ? program.program.methods.filter((m) => m.kind === 'spell') : [];
  if (!methods.length) return { ...base, ...extra, method: r.pick(['light', 'nothing']) };
  const m = r.pick(methods);
  const form = m.form ?? [];
  const fields: Record<string, unknown> = {};
  for (const f of form) if (!f.optional || r.chance(0.5)) fields[f.name] = value(r, f, ids);
  if (r.chance(0.05)) fields[r.pick(['bogus', '__proto__'])] = 1;
  const how = r.next();
  if (!m.form) return { ...base, ...extra, method: m.name, argument: { tag: 'record', fields: [] } };
  if (how < 0.5) return { ...base, ...extra, method: m.name, fields };
  const text = [m.name, ...Object.keys(fields).map((k) => `${k}=${spellValue(fields[k])}`)].join(' ');
  return { ...base, ...extra, method: 'receive', spell: r.chance(0.05) ? text.slice(0, r.int(text.length)) : text };
}

export function play(seed: number, steps: number): Harness {
  const h = Harness.town({ turnQuota: 10, allowances: { depth: 4, work: 4_000, storage: 4_000 } });
  const r = rng(seed);
  const used: { principal: string; cmd: Command }[] = [];
  for (let i = 0; i < steps; i++) {
    const cmd = randomCommand(h, r, used);
    h.run(cmd);
    if (cmd.kind === 'turn') used.push({ principal: cmd.principal, cmd });
    h.clock += r.int(120_000);
  }
  return h;
}
