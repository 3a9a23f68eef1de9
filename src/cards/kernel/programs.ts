/**
 * The kernel's port to the card language: where compiled programs come from. The kernel never
 * compiles anything itself; it asks a Programs for the program of a package (a cache around
 * the language's compile(), keyed by pin) and for the sealed library's kinds.
 */
import type { Budget, CompileResult, Diagnostic, Module, Program, Usage } from '../program.js';
import type { TypedData } from '../../contract/typed.js';

/** A card's state carried to new code, or why it cannot be (programRefused's clause). */
export type Carried =
  | { ok: true; state: TypedData; usage: Usage }
  | { ok: false; clause: 'stateType' | 'migration'; reason: string; diagnostics?: Diagnostic[]; usage: Usage };

/** Code before it is pinned: modules, the one that programs the card, and law text. */
export interface PackageSource {
  /** The module whose `initial` and spells program the card. */
  kind: string;
  modules: Module[];
  law?: string;
}

export interface Programs {
  /** The program of a package; the same package (same pin) must give the same program. */
  load(pkg: PackageSource, pin?: string): CompileResult;
  /** A library kind's package (`make`, `become`, genesis), or undefined for no such kind. */
  kind(name: string): PackageSource | undefined;
  /** Names of the library's kinds (modules that program cards). */
  kindNames(): string[];
  /** Checks modules against the library: stage diagnostics, empty when all is well. */
  check(modules: Module[], entry?: string): Diagnostic[];
  /** The language's own reprogram check (better hints); the kernel's `carryState` otherwise. */
  reprogram?(from: Program, to: Program, state: TypedData, budget: Budget): Carried;
  /**
   * The library modules these programs compile against, when they are a library's: another
   * thread (the projector thread) makes the same programs from them, functions not being
   * transferable.
   */
  readonly libraryModules?: readonly Module[];
}

/**
 * A cache around a compile function: compile each package once, keep it by pin and by source.
 * `compile` is the language's; `library` lists its kinds.
 */
export function programCache(opts: {
  compile(pkg: PackageSource): CompileResult;
  kinds: Map<string, PackageSource>;
  check?(modules: Module[], entry?: string): Diagnostic[];
  reprogram?(from: Program, to: Program, state: TypedData, budget: Budget): Carried;
  libraryModules?: readonly Module[];
}): Programs {
  const byPin = new Map<string, Program>();
  const bySource = new Map<string, CompileResult>();
  /** The same package object (a library kind, a world's package) is looked up without hashing its text. */
  const byObject = new WeakMap<PackageSource, CompileResult>();
  const keyOf = (pkg: PackageSource) => JSON.stringify([pkg.kind, pkg.modules.map((m) => [m.name, m.source]), pkg.law ?? null]);
  return {
    load(pkg, pin) {
      if (pin !== undefined) {
        const hit = byPin.get(pin);
        if (hit) return { ok: true, program: hit };
      }
      let result = byObject.get(pkg);
      if (!result) {
        const key = keyOf(pkg);
        result = bySource.get(key);
        if (!result) {
          result = opts.compile(pkg);
          if (bySource.size > 4096) bySource.clear();
          bySource.set(key, result);
        }
        byObject.set(pkg, result);
      }
      if (result.ok) byPin.set(result.program.cid, result.program);
      return result;
    },
    kind: (name) => opts.kinds.get(name),
    ...(opts.reprogram ? { reprogram: opts.reprogram } : {}),
    ...(opts.libraryModules ? { libraryModules: opts.libraryModules } : {}),
    kindNames: () => [...opts.kinds.keys()].sort(),
    check(modules, entry) {
      if (opts.check) return opts.check(modules, entry);
      const r = opts.compile({ kind: modules[0]?.name ?? 'main', modules });
      return r.ok ? [] : r.diagnostics;
    },
  };
}
