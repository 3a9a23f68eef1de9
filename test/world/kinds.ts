/**
 * Kinds the world's tests add beside the sealed library, to provoke what the library's cards
 * never do through HTTP: a card that will not be shown (`denied`), a turn that spends its budget,
 * a cascade of sends that spends its allowance, and more sends than one delivery runs.
 */
import { compile } from '../../src/cards/compile.js';
import { compileInput, libraryKinds } from '../../src/cards/kernel/library.js';
import { genesisTown, type TownLayout } from '../../src/cards/kernel/genesis.js';
import { programCache, type Programs } from '../../src/cards/kernel/programs.js';
import { sealedLibrary } from '../../src/cards/library/index.js';
import type { Library, Module } from '../../src/cards/program.js';

export const testKinds: Record<string, string> = {
  // Shown only to ann: anyone else is `denied`.
  shy: `type Shy:
  waves: Natural

def initial() -> Shy:
  return Shy { waves: 0 }

spell wave(self: Shy) -> Shy:
  return self { waves: self.waves + 1 }

view paint(self: Shy, viewer: Principal) -> Text:
  if not startsWith(viewer, "guest:town.test:ann"):
    refuse "shy" "it hides from strangers"
  return "a shy thing, waved at {self.waves} times"
`,
  spinner: `type Spinner:
  turns: Natural

def initial() -> Spinner:
  return Spinner { turns: 0 }

spell spin(self: Spinner, n: Natural 0..100000000) -> Spinner:
  let t = self.turns
  for i in 0..n:
    t = t + 1
  return self { turns: t }
`,
  echo: `type Echo:
  heard: Natural

def initial() -> Echo:
  return Echo { heard: 0 }

spell ping(self: Echo, to: Object 1..128) -> Echo:
  send to.ping { to: this }
  return self { heard: self.heard + 1 }
`,
  horn: `type Horn:
  blown: Natural

def initial() -> Horn:
  return Horn { blown: 0 }

spell blow(self: Horn, to: Object 1..128, times: Natural 0..40) -> Horn:
  for i in 0..times:
    send to.receive { text: "toot", post: "" }
  return self { blown: self.blown + 1 }
`,
  mailbox: `type Mailbox:
  letters: Natural

def initial() -> Mailbox:
  return Mailbox { letters: 0 }

spell receive(self: Mailbox, text: Text, post: Text) -> Mailbox:
  say "a letter: {text}"
  return self { letters: self.letters + 1 }
`,
};

let cached: Programs | undefined;

/** The sealed library and the test kinds, as the kernel's Programs. */
export function testPrograms(): Programs {
  if (cached) return cached;
  const modules = new Map<string, Module>(sealedLibrary().modules);
  for (const [name, source] of Object.entries(testKinds)) modules.set(name, { name, source });
  const library: Library = { modules };
  cached = programCache({ compile: (pkg) => compile(compileInput(pkg), library), kinds: libraryKinds(library), libraryModules: [...modules.values()] });
  return cached;
}

/** The genesis town with one card of each test kind in the square. */
export const testLayout: TownLayout = {
  entrance: genesisTown.entrance,
  cards: [
    ...genesisTown.cards,
    { id: 'shy', kind: 'shy', place: 'square' },
    { id: 'spinner', kind: 'spinner', place: 'square' },
    { id: 'echo-a', kind: 'echo', place: 'square' },
    { id: 'echo-b', kind: 'echo', place: 'square' },
    { id: 'horn', kind: 'horn', place: 'square' },
    { id: 'mailbox', kind: 'mailbox', place: 'square' },
  ],
};
