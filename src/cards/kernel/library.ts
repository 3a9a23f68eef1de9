/**
 * The Programs the service runs the kernel with: the language's compile() over the sealed
 * library, each package compiled once and kept by pin. Every library module that programs a
 * card (has an initial and spells, views, law, wants or rules) is a kind; `core` is not.
 */
import { compile, reprogram } from '../compile.js';
import { sealedLibrary } from '../library/index.js';
import type { CompileInput, Library, Module } from '../program.js';
import { programCache, type PackageSource, type Programs } from './programs.js';

export function compileInput(pkg: PackageSource, entry?: string): CompileInput {
  return { modules: pkg.modules, kind: pkg.kind, ...(pkg.law !== undefined ? { law: pkg.law } : {}), ...(entry !== undefined ? { entry } : {}) };
}

/** The kinds of a library: its modules that program a card, each as a package of itself. */
export function libraryKinds(library: Library): Map<string, PackageSource> {
  const kinds = new Map<string, PackageSource>();
  for (const m of library.modules.values()) {
    const r = compile({ modules: [m], kind: m.name }, library);
    if (r.ok && r.program.card) kinds.set(m.name, { kind: m.name, modules: [m] });
  }
  return kinds;
}

export function libraryPrograms(library: Library = sealedLibrary()): Programs {
  return programCache({
    compile: (pkg) => compile(compileInput(pkg), library),
    kinds: libraryKinds(library),
    libraryModules: [...library.modules.values()],
    check(modules: Module[], entry?: string) {
      const r = compile({ modules, ...(entry !== undefined ? { entry } : {}) }, library);
      return r.ok ? [] : r.diagnostics;
    },
    reprogram: (from, to, state, budget) => reprogram(from, to, state, budget),
  });
}
