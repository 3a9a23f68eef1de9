/**
 * `GET world/{object}/source`: the card's law (one line per clause with its reading), its
 * source, `pin`, `pinSlug` and `forms`. With `full=1` the package is returned as the host keeps
 * it, every module with its content id.
 */
import { cidOf } from '../cards/compile.js';
import type { FormField } from '../cards/program.js';
import { TownError } from '../contract/town-error.js';
import { shownCard } from './card.js';
import type { WorldReads } from './world-reads.js';

/** A form field as the catalogue writes its blank. */
function fieldForm(f: FormField) {
  const form = f.form;
  const base = { name: f.name, optional: f.optional };
  switch (form.kind) {
    case 'natural':
    case 'text':
    case 'object':
      return { ...base, kind: form.kind, min: form.min, max: form.max };
    case 'oneOf':
      return { ...base, kind: 'oneOf', options: form.options };
    case 'boolean':
      return { ...base, kind: 'boolean' };
  }
}

export async function sourceReply(r: WorldReads, id: string, principal: string, full: boolean) {
  const { card, pkg } = await shownCard(r, id, principal);
  if (!pkg) throw new TownError('unknown', `the code of ${id} is not known here yet`, { hintHref: '/AGENTS.md/world' });
  const main = pkg.modules.find((m) => m.name === pkg.kind) ?? pkg.modules[0];
  const forms: Record<string, ReturnType<typeof fieldForm>[]> = {};
  for (const m of pkg.methods) if (m.kind === 'spell' && m.form) forms[m.name] = m.form.map(fieldForm);
  const reply = {
    id: card.id,
    kind: card.kind,
    law: pkg.clauses.map((c) => ({ clause: c.name, reading: c.reading, line: c.text })),
    source: main?.source ?? '',
    pin: card.pin,
    pinSlug: card.pinSlug,
    forms,
  };
  if (!full) return reply;
  return {
    ...reply,
    package: {
      pin: pkg.pin,
      pinSlug: pkg.pinSlug,
      kind: pkg.kind,
      stateType: pkg.stateType,
      modules: pkg.modules.map((m) => ({ name: m.name, cid: cidOf({ name: m.name, source: m.source }), source: m.source })),
      ...(pkg.law !== undefined ? { law: pkg.law } : {}),
      methods: pkg.methods,
      clauses: pkg.clauses,
      wants: pkg.wants,
      rules: pkg.rules,
    },
  };
}
