/**
 * Programs for the kernel's tests: the sealed library, compiled for real, plus a few kinds
 * written here in the card language to provoke what the library's cards never do (a budget
 * spent, a cascade of sends, a reprogram that needs `migrate`, a law a state breaks, a make
 * from card code, a field fixed to one value).
 */
import { compile } from '../../../src/cards/compile.js';
import { sealedLibrary } from '../../../src/cards/library/index.js';
import type { Library, Module } from '../../../src/cards/program.js';
import { compileInput, libraryKinds } from '../../../src/cards/kernel/library.js';
import { reprogram } from '../../../src/cards/compile.js';
import { programCache, type Programs } from '../../../src/cards/kernel/programs.js';

export const testModules: Record<string, string> = {
  maker: `type Maker:
  made: Natural

def initial() -> Maker:
  return Maker { made: 0 }

spell stash(self: Maker, text: Text 0..80) -> Maker:
  make note { text: text }
  return self { made: self.made + 1 }

spell relay(self: Maker, to: Object 1..128, text: Text 0..200) -> Maker:
  send to.receive { text: text, post: "" }
  return self
`,
  ledger: `type Ledger:
  credited: List Principal

def initial() -> Ledger:
  return Ledger { credited: [] }

spell credit(self: Ledger, who: Principal) -> Ledger:
  return self { credited: append(self.credited, who) }
`,
  mailbox: `type Mailbox:
  letters: List Text

def initial() -> Mailbox:
  return Mailbox { letters: [] }

spell receive(self: Mailbox, text: Text, post: Text) -> Mailbox:
  say "a letter: {text}"
  return self { letters: append(self.letters, text) }

spell clear(self: Mailbox) -> Mailbox:
  return self { letters: [] }
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

spell grow(self: Spinner, n: Natural 0..100000000) -> Spinner:
  let xs: List Natural = []
  for i in 0..n:
    xs = append(xs, i)
  return self { turns: length(xs) }
`,
  echo: `type Echo:
  heard: Natural

def initial() -> Echo:
  return Echo { heard: 0 }

spell ping(self: Echo, to: Object 1..128) -> Echo:
  send to.ping { to: this }
  return self { heard: self.heard + 1 }
`,
  dim: `type Lamp:
  lit: Boolean
  fuel: Natural

law:
  low: self.fuel <= 1 -- "a dim lamp holds one measure"

def initial() -> Lamp:
  return Lamp { lit: false, fuel: 0 }

spell light(self: Lamp) -> Lamp:
  return self { lit: true }
`,
  torch: `type Torch:
  burning: Boolean
  pitch: Natural

type OldLamp:
  lit: Boolean
  fuel: Natural

def initial() -> Torch:
  return Torch { burning: false, pitch: 1 }

def migrate(old: OldLamp) -> Torch:
  return Torch { burning: old.lit, pitch: old.fuel }

spell light(self: Torch) -> Torch:
  return self { burning: true }
`,
  stone: `type Stone:
  weight: Natural

def initial() -> Stone:
  return Stone { weight: 1 }

spell lift(self: Stone) -> Stone:
  say "{caller} lifts the stone"
  return self
`,
  switch: `type Mode:
  only

type Switch:
  on: Boolean
  mode: Mode

def initial() -> Switch:
  return Switch { on: false, mode: only }

spell set(self: Switch, mode: Mode, on: Boolean) -> Switch:
  return self { on: on }

spell load(self: Switch, names: List Text) -> Switch:
  return self

spell drain(self: Switch, n: Natural 0..9) -> Switch:
  let k = 3 - n
  return self
`,
  double: `def twice(n: Natural) -> Natural:
  return n * 2
`,
};

export interface Fixture {
  programs: Programs;
  library: Library;
}

let cached: Fixture | undefined;

/** The sealed library with the test kinds beside it (names never clash with the library's). */
export function fixturePrograms(): Fixture {
  if (cached) return cached;
  const modules = new Map<string, Module>(sealedLibrary().modules);
  for (const [name, source] of Object.entries(testModules)) {
    if (modules.has(name)) throw new Error(`test kind ${name} would shadow the library's`);
    modules.set(name, { name, source });
  }
  const library: Library = { modules };
  const programs = programCache({
    compile: (pkg) => compile(compileInput(pkg), library),
    kinds: libraryKinds(library),
    reprogram: (from, to, state, budget) => reprogram(from, to, state, budget),
  });
  cached = { programs, library };
  return cached;
}
